"""Stock kept per warehouse."""

from dataclasses import dataclass, field


@dataclass
class Item:
    sku: str
    count: int = 0


@dataclass
class Warehouse:
    name: str
    items: dict = field(default_factory=dict)

    def receive(self, sku, count):
        item = self.items.setdefault(sku, Item(sku))
        item.count += count
        return item.count

    def ship(self, sku, count):
        item = self.items[sku]
        if item.count < count:
            raise ValueError(f"only {item.count} of {sku} in stock")
        item.count -= count
        return item.count

    def total(self):
        return sum(item.count for item in self.items.values())
