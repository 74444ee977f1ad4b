import ProductCatalogService from './ProductCatalog.service';
import ProductCatalogGateway from '../gateways/rpc/ProductCatalog.gateway';
import CurrencyGateway from '../gateways/rpc/Currency.gateway';

jest.mock('../gateways/rpc/ProductCatalog.gateway');
jest.mock('../gateways/rpc/Currency.gateway');

const mockedCatalog = jest.mocked(ProductCatalogGateway);
const mockedCurrency = jest.mocked(CurrencyGateway);

const solarFilter = {
  id: '66VCHSJNUP',
  name: 'Solar Filter',
  categories: ['accessories', 'telescopes'],
  priceUsd: { currencyCode: 'USD', units: 69, nanos: 950000000 },
};

const inEuro = { currencyCode: 'EUR', units: 64, nanos: 100000000 };

beforeEach(() => jest.resetAllMocks());

describe('ProductCatalogService.getProductPrice', () => {
  it('returns catalog prices unchanged for USD and for an empty currency', async () => {
    await expect(ProductCatalogService.getProductPrice(solarFilter.priceUsd, 'USD')).resolves.toBe(solarFilter.priceUsd);
    await expect(ProductCatalogService.getProductPrice(solarFilter.priceUsd, '')).resolves.toBe(solarFilter.priceUsd);
    expect(mockedCurrency.convert).not.toHaveBeenCalled();
  });

  it('asks the currency service for any other currency', async () => {
    mockedCurrency.convert.mockResolvedValue(inEuro);
    await expect(ProductCatalogService.getProductPrice(solarFilter.priceUsd, 'EUR')).resolves.toEqual(inEuro);
    expect(mockedCurrency.convert).toHaveBeenCalledWith(solarFilter.priceUsd, 'EUR');
  });
});

describe('ProductCatalogService listings', () => {
  it('prices every listed product in the requested currency', async () => {
    mockedCatalog.listProducts.mockResolvedValue({ products: [solarFilter, { ...solarFilter, id: 'LS4PSXUNUM' }] });
    mockedCurrency.convert.mockResolvedValue(inEuro);

    const products = await ProductCatalogService.getProductList('EUR');

    expect(products.map(p => p.priceUsd)).toEqual([inEuro, inEuro]);
    expect(mockedCurrency.convert).toHaveBeenCalledTimes(2);
  });

  it('keeps the product fields when pricing a single product', async () => {
    mockedCatalog.getProduct.mockResolvedValue(solarFilter);

    const product = await ProductCatalogService.getProduct(solarFilter.id);

    expect(product).toEqual(solarFilter);
  });
});
