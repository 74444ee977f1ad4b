// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

import { Empty, Product } from '../protos/demo';
import ProductCatalogGateway from '../gateways/rpc/ProductCatalog.gateway';
import CurrencyGateway from '../gateways/rpc/Currency.gateway';

const ProductCatalogService = () => ({
  async getProductPrice(price: Product['priceUsd'], currencyCode: string) {
    return !!currencyCode && currencyCode !== 'USD'
      ? await CurrencyGateway.convert(price!, currencyCode)
      : price!;
  },

  async getProductList(currencyCode = 'USD') {
    const { products } = await ProductCatalogGateway.listProducts();

    return Promise.all(
      products.map(async product => {
        const priceUsd = await this.getProductPrice(product.priceUsd, currencyCode);

        return {
          ...product,
          priceUsd,
        };
      })
    );
  },

  async getProduct(id: string, currencyCode = 'USD') {
    const product = await ProductCatalogGateway.getProduct(id);

    return {
      ...product,
      priceUsd: await this.getProductPrice(product.priceUsd, currencyCode),
    };
  },
});

export default ProductCatalogService();
