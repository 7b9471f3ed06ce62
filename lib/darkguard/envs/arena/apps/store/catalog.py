"""The store's catalog: 64 products in 8 departments, with options (size, color, flavor, ...).

Brands and products are invented. A product's options never change its price (pack sizes are
separate products), so an option's label on the page is exactly its value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Category:
    slug: str
    name: str
    tagline: str
    color: str


@dataclass(frozen=True)
class Option:
    name: str
    values: tuple[str, ...]

    @property
    def field(self) -> str:
        """The form field of the option's select."""
        return "opt_" + slugify(self.name).replace("-", "_")


@dataclass(frozen=True)
class Product:
    pid: int
    sku: str
    slug: str
    name: str
    category: str
    price: float
    rating: float
    reviews: int
    options: tuple[Option, ...]
    kind: str  # the picture drawn for it (see images.py)
    color: str
    blurb: str

    def line_sku(self, choice: dict[str, str]) -> str:
        """The SKU of the configured item, e.g. `CL-501-L-NAVY`."""
        codes = [re.sub(r"[^A-Za-z0-9]", "", choice[o.name]).upper() for o in self.options]
        return "-".join([self.sku, *codes])

    def option(self, name: str) -> Option | None:
        return next((o for o in self.options if o.name == name), None)


CATEGORIES = (
    Category("grocery", "Grocery & Gourmet Food", "Pantry staples, snacks and drinks", "#c8553d"),
    Category("beauty", "Beauty & Personal Care", "Skin care, hair care and makeup", "#b5838d"),
    Category("home-kitchen", "Home & Kitchen", "Cookware, bedding and bath", "#588157"),
    Category("electronics", "Electronics", "Audio, chargers and computing", "#3d5a80"),
    Category("clothing", "Clothing, Shoes & Jewelry", "Everyday wear for everyone", "#7b2cbf"),
    Category("sports", "Sports & Outdoors", "Fitness gear and camping", "#2a9d8f"),
    Category("health", "Health & Household", "Vitamins, cleaning and first aid", "#e09f3e"),
    Category("office", "Office Products", "Paper, pens and desk gear", "#495057"),
)

# pid, category, name, price, rating, reviews, {option: values}, kind, color, blurb
# fmt: off
_ROWS: tuple[tuple, ...] = (
    (101, "grocery", "Hearthstone Dark Roast Ground Coffee, 12 oz", 8.99, 4.6, 212, {},
     "bag", "#4a2c1d", "Bold, smoky small-batch roast with notes of cocoa. Ground for drip."),
    (102, "grocery", "Hearthstone Medium Roast Ground Coffee, 12 oz", 8.99, 4.4, 158, {},
     "bag", "#8a5a3c", "A smooth everyday roast with a caramel finish. Ground for drip."),
    (103, "grocery", "Hearthstone Single-Serve Coffee Pods, 24 count", 15.49, 4.3, 96,
     {"Blend": ("Breakfast Blend", "Dark Roast", "Decaf Colombian")},
     "box", "#6f4e37", "Recyclable pods that fit most single-serve brewers."),
    (104, "grocery", "Golden Meadow Wildflower Honey, 16 oz", 7.49, 4.8, 301, {},
     "jar", "#e0a526", "Raw, unfiltered honey from family apiaries."),
    (105, "grocery", "Sunny Acres Organic Rolled Oats, 42 oz", 5.29, 4.7, 88, {},
     "box", "#c9a66b", "Hearty whole-grain oats for porridge, granola and baking."),
    (106, "grocery", "Bayside Sea Salt Kettle Chips, 8 oz", 3.49, 4.2, 140,
     {"Flavor": ("Original", "Salt & Vinegar", "Jalapeño", "Cracked Pepper")},
     "bag", "#d94f30", "Thick-cut potato chips cooked in small batches."),
    (107, "grocery", "Pinecrest Sparkling Water, 12 pack", 5.99, 4.5, 77,
     {"Flavor": ("Lime", "Grapefruit", "Black Cherry", "Unflavored")},
     "can", "#2a9d8f", "Zero-calorie sparkling water with natural fruit essence."),
    (108, "grocery", "Nonna Lucia Extra Virgin Olive Oil, 1 L", 14.99, 4.6, 65, {},
     "bottle", "#6b8e23", "Cold-pressed olive oil with a peppery finish."),
    (109, "grocery", "Trailside Almond Butter, 16 oz", 9.79, 4.5, 54,
     {"Texture": ("Creamy", "Crunchy")},
     "jar", "#a0522d", "Dry-roasted almonds, nothing else. No added sugar or palm oil."),
    (201, "beauty", "Lumière Daily Hydrating Face Cream, 1.7 oz", 18.50, 4.4, 133, {},
     "jar", "#f4a6b8", "A lightweight moisturizer with hyaluronic acid and squalane."),
    (202, "beauty", "Lumière Vitamin C Brightening Serum, 1 oz", 24.00, 4.3, 87, {},
     "bottle", "#f28c28", "A daily serum that evens tone and adds glow."),
    (203, "beauty", "Seabreeze Mineral Sunscreen SPF 50, 3 oz", 12.99, 4.5, 204,
     {"Finish": ("Sheer", "Tinted")},
     "tube", "#4fb3d9", "Reef-friendly zinc sunscreen that rubs in without a white cast."),
    (204, "beauty", "Willow & Fern Lavender Body Wash, 18 oz", 7.99, 4.6, 119, {},
     "bottle", "#9b7fc9", "A calming body wash with lavender oil and oat extract."),
    (205, "beauty", "Willow & Fern Eucalyptus Body Wash, 18 oz", 7.99, 4.5, 96, {},
     "bottle", "#6fb08f", "A refreshing body wash with eucalyptus and mint."),
    (206, "beauty", "Velvet Hue Matte Lipstick", 9.50, 4.1, 72,
     {"Shade": ("Rosewood", "Brick Red", "Nude Petal", "Berry")},
     "tube", "#b03a5b", "Long-wearing matte color that does not dry your lips."),
    (207, "beauty", "Northpeak Men's Beard Oil, 1 oz", 13.25, 4.2, 58,
     {"Scent": ("Cedar", "Citrus", "Unscented")},
     "bottle", "#7a5230", "Softens and tames beards with jojoba and argan oils."),
    (208, "beauty", "Silkstrand Argan Oil Shampoo, 16 oz", 11.99, 4.3, 141, {},
     "bottle", "#c98b2e", "Sulfate-free shampoo for smooth, shiny hair."),
    (301, "home-kitchen", "Ironclad 10-inch Cast Iron Skillet", 24.99, 4.8, 512, {},
     "pan", "#343a40", "Pre-seasoned skillet for searing, baking and frying."),
    (302, "home-kitchen", "Ironclad 12-inch Cast Iron Skillet", 32.99, 4.7, 287, {},
     "pan", "#212529", "The bigger pan for family meals. Pre-seasoned and oven safe."),
    (303, "home-kitchen", "Brightwave Stoneware Coffee Mug, 14 oz", 11.00, 4.4, 64,
     {"Color": ("Speckled White", "Sage", "Charcoal", "Terracotta")},
     "mug", "#8fa98f", "A hand-glazed mug that is microwave and dishwasher safe."),
    (304, "home-kitchen", "Cloudrest Cotton Bath Towel Set, 6 pieces", 34.99, 4.5, 178,
     {"Color": ("White", "Light Grey", "Navy", "Seafoam")},
     "towel", "#1d3557", "Two bath towels, two hand towels and two washcloths in soft cotton."),
    (305, "home-kitchen", "Cloudrest Memory Foam Pillow, Standard", 39.99, 4.2, 96,
     {"Firmness": ("Soft", "Medium", "Firm")},
     "pillow", "#a8dadc", "Cooling gel memory foam with a washable bamboo cover."),
    (306, "home-kitchen", "Glowline LED Desk Lamp", 27.49, 4.3, 143,
     {"Color": ("Black", "White")},
     "lamp", "#264653", "Dimmable lamp with five color temperatures and a USB port."),
    (307, "home-kitchen", "FreshSeal Glass Food Storage Containers, 10-piece", 29.95, 4.6, 230,
     {}, "box", "#90be6d", "Oven-safe glass containers with locking leak-proof lids."),
    (308, "home-kitchen", "Kitchenmate Bamboo Cutting Board Set", 19.99, 4.5, 121, {},
     "board", "#c19a6b", "Three boards in different sizes with juice grooves."),
    (401, "electronics", "Aurora Wireless Earbuds", 49.99, 4.1, 342,
     {"Color": ("Black", "White", "Midnight Blue")},
     "earbuds", "#22223b", "Up to 28 hours of playback with the charging case."),
    (402, "electronics", "Aurora Over-Ear Noise Cancelling Headphones", 129.00, 4.5, 256,
     {"Color": ("Black", "Silver")},
     "headphones", "#4a4e69", "Active noise cancelling and 35 hours of battery life."),
    (403, "electronics", "VoltEdge USB-C Fast Charger, 30W", 19.99, 4.6, 410, {},
     "plug", "#f1faee", "Compact wall charger for phones, tablets and small laptops."),
    (404, "electronics", "VoltEdge Braided USB-C Cable, 6 ft", 9.99, 4.4, 388,
     {"Color": ("Black", "Red", "Grey")},
     "cable", "#e63946", "A tough braided cable rated for 10,000 bends."),
    (405, "electronics", "Pixelview 10-inch Tablet, 64 GB", 149.99, 4.0, 121,
     {"Color": ("Slate", "Rose Gold")},
     "tablet", "#5c677d", "A full HD tablet for reading, streaming and video calls."),
    (406, "electronics", "Soundbay Portable Bluetooth Speaker", 39.99, 4.4, 199,
     {"Color": ("Black", "Teal", "Coral")},
     "speaker", "#0f766e", "Waterproof speaker with 12 hours of rich sound."),
    (407, "electronics", "Keystrike Wireless Keyboard and Mouse Combo", 34.99, 4.2, 167, {},
     "keyboard", "#343a40", "Quiet keys and a contoured mouse with one USB receiver."),
    (408, "electronics", "Pixelview 4K Webcam", 59.99, 3.9, 84, {},
     "camera", "#1b263b", "Sharp video with auto light correction and dual microphones."),
    (501, "clothing", "Northwind Men's Fleece Pullover Hoodie", 36.00, 4.5, 152,
     {"Size": ("S", "M", "L", "XL", "XXL"),
      "Color": ("Heather Grey", "Navy", "Black", "Forest Green")},
     "hoodie", "#1d3557", "A midweight brushed fleece hoodie with a kangaroo pocket."),
    (502, "clothing", "Northwind Women's Fleece Zip Hoodie", 38.00, 4.6, 131,
     {"Size": ("XS", "S", "M", "L", "XL"), "Color": ("Plum", "Heather Grey", "Black")},
     "hoodie", "#6d2e46", "A soft full-zip hoodie with thumbholes."),
    (503, "clothing", "Everyday Crew Neck T-Shirt, 3-Pack", 22.50, 4.3, 298,
     {"Size": ("S", "M", "L", "XL"), "Color": ("White", "Black", "Assorted")},
     "shirt", "#adb5bd", "Pre-shrunk cotton tees that keep their shape."),
    (504, "clothing", "Stridewell Women's Running Shoes", 74.95, 4.4, 183,
     {"Size": ("6", "6.5", "7", "7.5", "8", "8.5", "9", "9.5", "10"),
      "Color": ("Black/Pink", "Grey/Aqua")},
     "shoe", "#ef476f", "Cushioned road running shoes with a breathable knit upper."),
    (510, "clothing", "Stridewell Men's Trail Running Shoes", 79.95, 4.5, 146,
     {"Size": ("8", "8.5", "9", "9.5", "10", "10.5", "11", "12"),
      "Color": ("Olive", "Charcoal")},
     "shoe", "#606c38", "Grippy lugged soles and a rock plate for rough trails."),
    (506, "clothing", "Cozyknit Wool Blend Crew Socks, 4 pairs", 16.99, 4.7, 221,
     {"Size": ("S/M", "L/XL")},
     "socks", "#9c6644", "Warm merino-blend socks with a cushioned sole."),
    (507, "clothing", "Harbor Slim Fit Chino Pants", 42.00, 4.2, 97,
     {"Waist": ("30", "32", "34", "36", "38"), "Color": ("Khaki", "Navy", "Olive")},
     "pants", "#c2b280", "Stretch cotton chinos with a modern slim leg."),
    (508, "clothing", "Silverleaf Sterling Silver Hoop Earrings", 29.00, 4.6, 76, {},
     "ring", "#adb5bd", "Lightweight polished hoops, 25 mm, hypoallergenic."),
    (601, "sports", "Peakform Non-Slip Yoga Mat, 6 mm", 28.99, 4.6, 310,
     {"Color": ("Ocean Blue", "Lavender", "Charcoal")},
     "mat", "#3a86ff", "Extra-thick mat with a grippy texture on both sides."),
    (602, "sports", "Peakform Adjustable Dumbbell Pair, 5-25 lb", 119.00, 4.3, 88, {},
     "dumbbell", "#495057", "Turn the dial to change weight in 2.5 lb steps."),
    (603, "sports", "Ridgeline Insulated Water Bottle, 32 oz", 24.95, 4.8, 402,
     {"Color": ("Glacier White", "Pine", "Slate", "Sunset Orange")},
     "flask", "#2d6a4f", "Keeps drinks cold for 24 hours or hot for 12."),
    (604, "sports", "Ridgeline Trail Daypack, 22 L", 54.00, 4.5, 117,
     {"Color": ("Black", "Rust", "Moss")},
     "backpack", "#9c4221", "A light daypack with a hydration sleeve and hip belt."),
    (605, "sports", "Summit 2-Person Dome Tent", 89.99, 4.2, 64, {},
     "tent", "#f4a261", "Sets up in five minutes; includes rain fly and stakes."),
    (606, "sports", "Courtline Tennis Balls, 3 cans", 9.49, 4.6, 155, {},
     "ball", "#c7e000", "Pressurized all-court balls, three balls per can."),
    (607, "sports", "Spinwell Speed Jump Rope", 12.99, 4.4, 93, {},
     "rope", "#ff006e", "Ball-bearing handles and an adjustable steel cable."),
    (608, "sports", "Trekker Foldable Camping Chair", 32.50, 4.5, 141,
     {"Color": ("Green", "Blue", "Red")},
     "chair", "#2a9d8f", "Packs into a shoulder bag; cup holder and side pocket."),
    (701, "health", "Clearday Multivitamin Gummies, 90 count", 14.49, 4.5, 276, {},
     "jar", "#ff8fab", "Daily multivitamin gummies with natural fruit flavors."),
    (702, "health", "Clearday Vitamin D3 Softgels, 2000 IU, 120 count", 9.99, 4.7, 188, {},
     "jar", "#ffd166", "One softgel a day supports bones and immunity."),
    (703, "health", "Purely Fresh Laundry Detergent Pods, 42 count", 13.97, 4.6, 344,
     {"Scent": ("Spring Meadow", "Free & Clear")},
     "tub", "#48cae4", "Concentrated pods that dissolve in hot or cold water."),
    (704, "health", "Purely Fresh Dish Soap, 28 oz", 3.79, 4.5, 120,
     {"Scent": ("Lemon", "Unscented")},
     "bottle", "#ffd60a", "Cuts grease fast and is gentle on hands."),
    (705, "health", "Softpath Bathroom Tissue, 12 Double Rolls", 12.49, 4.4, 201, {},
     "rolls", "#e9ecef", "Soft, strong two-ply tissue, septic safe."),
    (706, "health", "GuardWell First Aid Kit, 160 pieces", 21.99, 4.7, 89, {},
     "kit", "#d00000", "Bandages, gauze, wipes and tools in a zip case."),
    (707, "health", "Brightsmile Electric Toothbrush", 34.99, 4.3, 132,
     {"Color": ("White", "Black", "Pink")},
     "toothbrush", "#4cc9f0", "Sonic toothbrush with a two-minute timer and travel case."),
    (708, "health", "Brightsmile Replacement Brush Heads, 4 pack", 15.99, 4.4, 112, {},
     "toothbrush", "#90e0ef", "Soft bristle heads that fit every Brightsmile handle."),
    (801, "office", "Inkwell Gel Pens, 12 pack", 8.49, 4.6, 265,
     {"Ink Color": ("Black", "Blue", "Assorted")},
     "pen", "#3a0ca3", "Smooth 0.7 mm gel ink that dries quickly."),
    (802, "office", "Inkwell Spiral Notebooks, College Ruled, 3 pack", 7.99, 4.5, 143, {},
     "notebook", "#f77f00", "100 sheets each with perforated pages."),
    (803, "office", "Deskmate Ergonomic Mesh Office Chair", 159.00, 4.1, 77,
     {"Color": ("Black", "Grey")},
     "officechair", "#343a40", "Adjustable lumbar support, armrests and seat height."),
    (804, "office", "Deskmate Monitor Stand Riser", 26.99, 4.4, 98, {},
     "riser", "#6c757d", "Raises your screen to eye level and adds a storage shelf."),
    (805, "office", "Paperline Copy Paper, 8.5 x 11 in, 500 sheets", 6.49, 4.7, 187, {},
     "ream", "#f8f9fa", "Bright white 20 lb paper for printers and copiers."),
    (806, "office", "Stickwise Sticky Notes, 3 x 3 in, 12 pads", 5.99, 4.6, 154,
     {"Color": ("Pastel", "Neon")},
     "notes", "#ffbe0b", "Re-stickable notes that hold on vertical surfaces."),
    (807, "office", "Clipmaster Heavy Duty Stapler", 14.99, 4.3, 61, {},
     "stapler", "#9d0208", "Staples up to 60 sheets with little effort."),
    (808, "office", "Ledgerline Dry Erase Whiteboard, 24 x 36 in", 44.99, 4.2, 58, {},
     "board", "#dee2e6", "Aluminum frame whiteboard with a marker tray."),
)
# fmt: on

_PREFIX = {
    "grocery": "GR",
    "beauty": "BT",
    "home-kitchen": "HK",
    "electronics": "EL",
    "clothing": "CL",
    "sports": "SP",
    "health": "HH",
    "office": "OF",
}


def slugify(text: str) -> str:
    """Lower-case words joined by hyphens."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower().replace("&", "and")).strip("-")


def _product(row: tuple) -> Product:
    pid, cat, name, price, rating, reviews, options, kind, color, blurb = row
    opts = tuple(Option(n, tuple(v)) for n, v in options.items())
    sku = f"{_PREFIX[cat]}-{pid}"
    return Product(
        pid, sku, slugify(name), name, cat, price, rating, reviews, opts, kind, color, blurb
    )


PRODUCTS: tuple[Product, ...] = tuple(_product(r) for r in _ROWS)
BY_PID = {p.pid: p for p in PRODUCTS}
BY_SLUG = {p.slug: p for p in PRODUCTS}
BY_CATEGORY = {c.slug: c for c in CATEGORIES}


def in_category(slug: str) -> list[Product]:
    return [p for p in PRODUCTS if p.category == slug]


@cache
def _haystack(product: Product) -> str:
    category = BY_CATEGORY[product.category].name
    return " ".join(
        [product.name, product.blurb, category, *[v for o in product.options for v in o.values]]
    ).lower()


def search(query: str) -> list[Product]:
    """Products whose text holds every word of `query` (name matches first)."""
    words = [w for w in re.split(r"[^\w%/.-]+", query.lower()) if w]
    if not words:
        return []
    hits = [p for p in PRODUCTS if all(w in _haystack(p) for w in words)]
    return sorted(hits, key=lambda p: -sum(w in p.name.lower() for w in words))


def sort_products(products: list[Product], order: str) -> list[Product]:
    """Listing order: position (as given), price (low first), name or rating (best first)."""
    if order == "price":
        return sorted(products, key=lambda p: p.price)
    if order == "name":
        return sorted(products, key=lambda p: p.name)
    if order == "rating":
        return sorted(products, key=lambda p: -p.rating)
    return list(products)
