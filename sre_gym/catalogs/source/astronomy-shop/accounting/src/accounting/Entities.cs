// EF Core entities of the accounting ledger. Tables live in the accounting schema
// and use snake_case columns (UseSnakeCaseNamingConvention in DBContext).

using System.ComponentModel.DataAnnotations;
using System.ComponentModel.DataAnnotations.Schema;
using Microsoft.EntityFrameworkCore;

namespace Accounting;

[Table("orders", Schema = "accounting")]
internal class OrderEntity
{
    [Key]
    public required string Id { get; set; }
}

[Table("cart_items", Schema = "accounting")]
[PrimaryKey(nameof(OrderId), nameof(ProductId))]
internal class OrderItemEntity
{
    public required string ItemCostCurrencyCode { get; set; }

    public required long ItemCostUnits { get; set; }

    public required int ItemCostNanos { get; set; }

    public required string ProductId { get; set; }

    public required int Quantity { get; set; }

    public required string OrderId { get; set; }
}

[Table("shipping", Schema = "accounting")]
internal class ShippingEntity
{
    [Key]
    public required string ShippingTrackingId { get; set; }

    public required string ShippingCostCurrencyCode { get; set; }

    public required long ShippingCostUnits { get; set; }

    public required int ShippingCostNanos { get; set; }

    public required string StreetAddress { get; set; }

    public required string City { get; set; }

    public required string State { get; set; }

    public required string Country { get; set; }

    public required string ZipCode { get; set; }

    public required string OrderId { get; set; }
}
