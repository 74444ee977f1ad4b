// Product facade used by the pages and API routes: loads products from the product catalog
// over gRPC and expresses their prices in the shopper's currency (catalog prices are in USD).
import { Money, Product } from '../protos/demo';
import ProductCatalogGateway from '../gateways/rpc/ProductCatalog.gateway';
import CurrencyGateway from '../gateways/rpc/Currency.gateway';

const BASE_CURRENCY = 'USD';

const needsConversion = (currencyCode: string): boolean =>
  currencyCode !== '' && currencyCode !== BASE_CURRENCY;

const withPrice = (product: Product, priceUsd: Money): Product => ({ ...product, priceUsd });

class ProductCatalogService {
  async getProductPrice(price: Product['priceUsd'], currencyCode: string): Promise<Money> {
    if (!needsConversion(currencyCode)) {
      return price!;
    }
    return CurrencyGateway.convert(price!, currencyCode);
  }

  async getProductList(currencyCode = BASE_CURRENCY): Promise<Product[]> {
    const { products } = await ProductCatalogGateway.listProducts();

    const localized = products.map(async product =>
      withPrice(product, await this.getProductPrice(product.priceUsd, currencyCode))
    );
    return Promise.all(localized);
  }

  async getProduct(id: string, currencyCode = BASE_CURRENCY): Promise<Product> {
    const product = await ProductCatalogGateway.getProduct(id);
    const price = await this.getProductPrice(product.priceUsd, currencyCode);

    return withPrice(product, price);
  }
}

export default new ProductCatalogService();
