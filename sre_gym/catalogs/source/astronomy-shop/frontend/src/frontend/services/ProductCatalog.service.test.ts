// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

import ProductCatalogService from './ProductCatalog.service';
import ProductCatalogGateway from '../gateways/rpc/ProductCatalog.gateway';
import CurrencyGateway from '../gateways/rpc/Currency.gateway';

jest.mock('../gateways/rpc/ProductCatalog.gateway');
jest.mock('../gateways/rpc/Currency.gateway');

const telescope = {
  id: 'OLJCESPC7Z',
  name: 'National Park Foundation Explorascope',
  priceUsd: { currencyCode: 'USD', units: 101, nanos: 960000000 },
};

describe('ProductCatalogService', () => {
  it('does not convert USD prices', async () => {
    const price = await ProductCatalogService.getProductPrice(telescope.priceUsd, 'USD');
    expect(price).toEqual(telescope.priceUsd);
    expect(CurrencyGateway.convert).not.toHaveBeenCalled();
  });

  it('converts prices of every listed product', async () => {
    (ProductCatalogGateway.listProducts as jest.Mock).mockResolvedValue({ products: [telescope] });
    (CurrencyGateway.convert as jest.Mock).mockResolvedValue({ currencyCode: 'EUR', units: 94, nanos: 0 });
    const products = await ProductCatalogService.getProductList('EUR');
    expect(products[0].priceUsd.currencyCode).toBe('EUR');
  });
});
