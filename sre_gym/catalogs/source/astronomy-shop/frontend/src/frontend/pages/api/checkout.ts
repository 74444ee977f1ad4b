// POST /api/checkout: places the order through the checkout service and answers with the
// order, each line item carrying its full product (priced in the requested currency).
import type { NextApiRequest, NextApiResponse } from 'next';
import InstrumentationMiddleware from '../../utils/telemetry/InstrumentationMiddleware';
import CheckoutGateway from '../../gateways/rpc/Checkout.gateway';
import { Empty, OrderItem, PlaceOrderRequest } from '../../protos/demo';
import { IProductCheckoutItem, IProductCheckout } from '../../types/Cart';
import ProductCatalogService from '../../services/ProductCatalog.service';

type TResponse = IProductCheckout | Empty;

const withProduct = async ({ item, cost }: OrderItem, currencyCode: string): Promise<IProductCheckoutItem> => {
  const productId = item?.productId ?? '';
  const quantity = item?.quantity ?? 0;
  const product = await ProductCatalogService.getProduct(productId, currencyCode);

  return { cost, item: { productId, quantity, product } };
};

const handler = async ({ method, body, query }: NextApiRequest, res: NextApiResponse<TResponse>) => {
  if (method !== 'POST') {
    return res.status(405).send('');
  }

  const currencyCode = typeof query.currencyCode === 'string' ? query.currencyCode : '';
  const { order } = await CheckoutGateway.placeOrder(body as PlaceOrderRequest);
  const { items = [], ...placed } = order ?? {};

  const detailed = await Promise.all(items.map(line => withProduct(line, currencyCode)));

  return res.status(200).json({ ...placed, items: detailed } as IProductCheckout);
};

export default InstrumentationMiddleware(handler);
