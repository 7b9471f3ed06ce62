"""The fixed catalog of the shop: categories, products and their reviews.

Facts the task files rely on: the Dell Inspiron 15 is pid 24 ($629.99, rating 3.5); among the
touch-screen laptops the newest is pid 22, the cheapest pid 25 ($749.99) and the best rated pid 28
($999.99); among the toothbrushes the cheapest is pid 51 and the best rated pid 52; "Bluff" is
pid 1; the ThinkPad X1 Carbon Ultra is pid 21; pid 1001 "Joker 2" is the item sponsored under `s`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

SPONSORED_PID = 1001
TOUCH_SLUG = "touchscreen-laptops"


@dataclass(frozen=True)
class Category:
    slug: str
    name: str
    blurb: str
    art: str  # the drawing used for the category tile
    color: str


@dataclass(frozen=True)
class Product:
    pid: int
    name: str
    brand: str
    category: str  # a Category slug
    price: float
    rating: float  # out of 5
    reviews: int  # how many ratings
    released: str  # YYYY-MM-DD
    summary: str
    description: str
    specs: tuple[tuple[str, str], ...] = ()
    touch: bool = False
    art: str = "box"  # the drawing of the product image
    color: str = "#4a5568"

    @property
    def released_text(self) -> str:
        """The release date as a shopper reads it, e.g. 'Sep 24, 2024'."""
        day = date.fromisoformat(self.released)
        return f"{day:%b} {day.day}, {day.year}"

    def in_category(self, slug: str) -> bool:
        if slug == TOUCH_SLUG:
            return self.category == "laptops" and self.touch
        return self.category == slug


@dataclass(frozen=True)
class Review:
    author: str
    stars: int
    title: str
    body: str
    date: str


# fmt: off
CATEGORIES = (
    Category("laptops", "Laptops", "Everyday notebooks to ultralight workhorses",
             "laptop", "#2b6cb0"),
    Category(TOUCH_SLUG, "Touch-screen laptops", "2-in-1s and convertibles with touch",
             "tablet", "#6b46c1"),
    Category("toothbrushes", "Toothbrushes", "Sonic, oscillating and manual brushes",
             "brush", "#0d9488"),
    Category("audio", "Audio", "Speakers, headphones and earbuds",
             "speaker", "#c05621"),
    Category("smart-home", "Smart home", "Thermostats, doorbells, lights and plugs",
             "home", "#2f855a"),
    Category("kitchen", "Kitchen & household", "Air fryers, coffee makers and vacuums",
             "pot", "#9b2c2c"),
    Category("accessories", "Computer accessories", "Mice, monitors, drives and hubs",
             "mouse", "#4a5568"),
)


LAPTOPS = (
    Product(20, "ASUS VivoBook 16", "ASUS", "laptops",
            549.99, 4.0, 812, "2023-03-14",
            "16-inch everyday laptop with a roomy keyboard and number pad",
            "A large-screen laptop for schoolwork and streaming. The 16-inch WUXGA panel gives "
            "extra room for spreadsheets, and the full-size keyboard includes a number pad.",
            (("Display", "16\" WUXGA (1920×1200) IPS"), ("Processor", "Intel Core i5-1335U"),
             ("Memory", "8 GB"), ("Storage", "512 GB SSD"), ("Weight", "1.88 kg"),
             ("Touch screen", "No")),
            art="laptop", color="#5a6b7d"),
    Product(21, "Lenovo ThinkPad X1 Carbon Ultra", "Lenovo", "laptops",
            1849.99, 4.6, 421, "2024-02-20",
            "Carbon-fiber business ultrabook, 14\" 2.8K OLED, vPro",
            "Lenovo's lightest premium business laptop, built around a carbon-fiber chassis with a"
            " 2.8K OLED display, Intel Core Ultra 7 vPro processor, a 1080p webcam with privacy "
            "shutter and all-day battery life.",
            (("Display", "14\" 2.8K OLED (2880×1800)"),
             ("Processor", "Intel Core Ultra 7 165U vPro"), ("Memory", "32 GB LPDDR5x"),
             ("Storage", "1 TB SSD"), ("Weight", "1.09 kg"), ("Touch screen", "No")),
            art="laptop", color="#1a1a1a"),
    Product(22, "HP Spectre x360 14", "HP", "laptops",
            1449.99, 4.4, 198, "2024-09-24",
            "Convertible 14\" 2.8K OLED touch screen with pen",
            "A gem-cut aluminium convertible that folds into a tablet. The 120 Hz OLED touch "
            "screen works with the included rechargeable pen, and the 9-megapixel camera adjusts "
            "to the light.",
            (("Display", "14\" 2.8K OLED touch, 120 Hz"), ("Processor", "Intel Core Ultra 7 155H"),
             ("Memory", "16 GB"), ("Storage", "1 TB SSD"), ("Weight", "1.44 kg"),
             ("Touch screen", "Yes, with pen")),
            touch=True, art="tablet", color="#233142"),
    Product(23, "Microsoft Surface Laptop 5", "Microsoft", "laptops",
            1099.99, 4.2, 1204, "2022-10-25",
            "13.5\" PixelSense touch display, Alcantara keyboard deck",
            "A thin and quiet laptop with a 3:2 PixelSense touch screen that is great for reading "
            "and writing, and a soft Alcantara palm rest.",
            (("Display", "13.5\" PixelSense touch (2256×1504)"),
             ("Processor", "Intel Core i5-1235U"), ("Memory", "8 GB"), ("Storage", "512 GB SSD"),
             ("Weight", "1.27 kg"), ("Touch screen", "Yes")),
            touch=True, art="tablet", color="#4b6584"),
    Product(24, "Dell Inspiron 15", "Dell", "laptops",
            629.99, 3.5, 2316, "2023-06-05",
            "15.6\" FHD 120 Hz, Intel Core i5-1235U, 16 GB RAM, 512 GB SSD",
            "The Dell Inspiron 15 is an everyday 15.6-inch laptop with a Full HD 120 Hz anti-glare"
            " display, a 12th Gen Intel Core i5-1235U processor, 16 GB of memory and a 512 GB SSD."
            " A spill-resistant keyboard with number pad, a 720p webcam and a lift hinge make it a"
            " practical choice for home and school.",
            (("Display", "15.6\" FHD (1920×1080) 120 Hz anti-glare"),
             ("Processor", "12th Gen Intel Core i5-1235U"), ("Memory", "16 GB DDR4"),
             ("Storage", "512 GB SSD"), ("Graphics", "Intel Iris Xe"), ("Weight", "1.65 kg"),
             ("Battery", "41 Wh, up to 7 hours"), ("Touch screen", "No")),
            art="laptop", color="#2c3e50"),
    Product(25, "Lenovo IdeaPad Flex 5", "Lenovo", "laptops",
            749.99, 3.9, 967, "2023-05-16",
            "14\" 2-in-1 touch screen, AMD Ryzen 5, folds into a tablet",
            "A flexible 2-in-1 whose 360° hinge turns it into a tablet or a tent. The 14-inch "
            "WUXGA touch screen supports the Lenovo Digital Pen (sold separately).",
            (("Display", "14\" WUXGA touch (1920×1200)"), ("Processor", "AMD Ryzen 5 7530U"),
             ("Memory", "8 GB"), ("Storage", "512 GB SSD"), ("Weight", "1.55 kg"),
             ("Touch screen", "Yes")),
            touch=True, art="tablet", color="#576574"),
    Product(26, "Acer Swift Go 14", "Acer", "laptops",
            799.99, 4.1, 356, "2024-01-09",
            "14\" 2.8K OLED, Intel Core Ultra 5, 1.3 kg",
            "A light aluminium laptop with a vivid 2.8K OLED display, a QHD webcam and a touchpad "
            "with a row of media controls.",
            (("Display", "14\" 2.8K OLED"), ("Processor", "Intel Core Ultra 5 125H"),
             ("Memory", "16 GB"), ("Storage", "512 GB SSD"), ("Weight", "1.32 kg"),
             ("Touch screen", "No")),
            art="laptop", color="#8395a7"),
    Product(27, "Apple MacBook Air 13 (M3)", "Apple", "laptops",
            1099.0, 4.7, 3088, "2024-03-08",
            "13.6\" Liquid Retina, Apple M3 chip, up to 18 hours",
            "The thin and fanless MacBook Air with the M3 chip, a 13.6-inch Liquid Retina display "
            "and up to 18 hours of battery life.",
            (("Display", "13.6\" Liquid Retina (2560×1664)"), ("Processor", "Apple M3 8-core"),
             ("Memory", "8 GB unified"), ("Storage", "256 GB SSD"), ("Weight", "1.24 kg"),
             ("Touch screen", "No")),
            art="laptop", color="#b2bec3"),
    Product(28, "ASUS Zenbook 14 Flip OLED", "ASUS", "laptops",
            999.99, 4.8, 644, "2023-08-22",
            "14\" 2.8K OLED touch convertible, 90 Hz, stylus included",
            "A slim convertible with a 2.8K 90 Hz OLED touch screen, a 360° ErgoLift hinge and the"
            " ASUS Pen 2.0 in the box. Reviewers praise its colour accuracy and battery life.",
            (("Display", "14\" 2.8K OLED touch, 90 Hz"), ("Processor", "Intel Core i7-1360P"),
             ("Memory", "16 GB"), ("Storage", "1 TB SSD"), ("Weight", "1.50 kg"),
             ("Touch screen", "Yes, with stylus")),
            touch=True, art="tablet", color="#34495e"),
    Product(29, "Samsung Galaxy Book3 360", "Samsung", "laptops",
            899.99, 4.3, 287, "2023-02-01",
            "15.6\" AMOLED touch 2-in-1 with S Pen",
            "A 15.6-inch AMOLED convertible that pairs with Galaxy phones and tablets. The S Pen "
            "is included and magnetically attaches to the lid.",
            (("Display", "15.6\" FHD AMOLED touch"), ("Processor", "Intel Core i7-1355U"),
             ("Memory", "16 GB"), ("Storage", "512 GB SSD"), ("Weight", "1.46 kg"),
             ("Touch screen", "Yes, with S Pen")),
            touch=True, art="tablet", color="#3d4852"),
    Product(30, "Acer Chromebook Spin 714", "Acer", "laptops",
            829.99, 4.0, 175, "2023-11-14",
            "14\" touch Chromebook Plus convertible with garaged stylus",
            "A premium Chromebook convertible with a 14-inch 16:10 touch screen, a stylus that "
            "docks inside the chassis and a military-grade build.",
            (("Display", "14\" WUXGA touch"), ("Processor", "Intel Core i5-1335U"),
             ("Memory", "8 GB"), ("Storage", "256 GB SSD"), ("Weight", "1.36 kg"),
             ("Touch screen", "Yes, with stylus")),
            touch=True, art="tablet", color="#636e72"),
    Product(SPONSORED_PID, "Joker 2", "Joker Computing", "laptops",
            849.99, 4.3, 96, "2024-06-12",
            "13.3\" 2-in-1 touch laptop with detachable keyboard",
            "Joker 2 is a 13.3-inch 2-in-1 with a detachable backlit keyboard, a Full HD touch "
            "screen and a kickstand. Light enough to carry all day.",
            (("Display", "13.3\" FHD touch"), ("Processor", "Intel Core i5-1334U"),
             ("Memory", "8 GB"), ("Storage", "256 GB SSD"), ("Weight", "1.18 kg"),
             ("Touch screen", "Yes")),
            touch=True, art="tablet", color="#6c3483"),
)

TOOTHBRUSHES = (
    Product(50, "Oral-B Pro 1000 Rechargeable Toothbrush", "Oral-B", "toothbrushes",
            49.99, 4.4, 5210, "2019-04-01",
            "Oscillating-rotating clean with a pressure sensor",
            "A round brush head that oscillates, rotates and pulsates, with a visible pressure "
            "sensor and a 2-minute timer.",
            (("Type", "Electric, oscillating"), ("Battery", "Up to 10 days"),
             ("Modes", "1 (Daily Clean)")),
            art="brush", color="#1e88e5"),
    Product(51, "Colgate Extra Clean Manual Toothbrush, Medium", "Colgate", "toothbrushes",
            3.49, 4.0, 1822, "2018-01-15",
            "Single manual toothbrush with a cleaning tip",
            "A classic manual toothbrush with medium bristles and a tip that reaches back teeth.",
            (("Type", "Manual"), ("Bristles", "Medium"), ("Count", "1")),
            art="brush", color="#e53935"),
    Product(52, "Philips Sonicare DiamondClean 9000", "Philips Sonicare", "toothbrushes",
            199.99, 4.8, 3877, "2020-09-10",
            "Sonic brush with app coaching, 4 modes, charging glass",
            "Philips' premium sonic toothbrush with four modes, three intensities, a pressure "
            "sensor and a charging glass. Removes up to 10x more plaque than a manual brush.",
            (("Type", "Electric, sonic"), ("Battery", "Up to 14 days"), ("Modes", "4")),
            art="brush", color="#f8bbd0"),
    Product(53, "Oral-B iO Series 5", "Oral-B", "toothbrushes",
            99.99, 4.5, 1466, "2022-03-01",
            "Magnetic iO drive, smart pressure sensor, 5 modes",
            "Oral-B's iO technology in an easy-to-use brush with an AI brushing tracker and a "
            "smart pressure sensor that glows green when you brush right.",
            (("Type", "Electric, oscillating"), ("Battery", "Up to 14 days"), ("Modes", "5")),
            art="brush", color="#263238"),
    Product(54, "quip Sonic Electric Toothbrush", "quip", "toothbrushes",
            29.99, 3.9, 942, "2021-05-20",
            "Slim sonic brush with a 2-minute timer and travel cover",
            "A minimalist battery-powered sonic brush with a built-in timer that pulses every 30 "
            "seconds, and a cover that doubles as a mirror mount.",
            (("Type", "Electric, sonic"), ("Battery", "AAA, about 3 months"), ("Modes", "1")),
            art="brush", color="#90a4ae"),
    Product(55, "Philips Sonicare 4100 Power Toothbrush", "Philips Sonicare", "toothbrushes",
            39.99, 4.6, 6130, "2021-01-12",
            "Sonic clean, pressure sensor, 2 intensities",
            "An entry sonic toothbrush with a pressure sensor, two intensity settings and a brush-"
            "head replacement reminder.",
            (("Type", "Electric, sonic"), ("Battery", "Up to 14 days"), ("Modes", "1")),
            art="brush", color="#4dd0e1"),
    Product(56, "Fairywill P11 Sonic Toothbrush", "Fairywill", "toothbrushes",
            21.99, 4.2, 2750, "2022-08-08",
            "5 modes, 8 brush heads included, 30-day battery",
            "A budget sonic toothbrush with five cleaning modes, eight brush heads in the box and "
            "a battery that lasts a month.",
            (("Type", "Electric, sonic"), ("Battery", "Up to 30 days"), ("Modes", "5")),
            art="brush", color="#7e57c2"),
)

OTHERS = (
    Product(1, "Bluff", "Bluff Audio", "audio",
            59.99, 4.1, 733, "2023-04-18",
            "Palm-size waterproof Bluetooth speaker",
            "Bluff is a palm-size Bluetooth speaker with surprisingly deep bass, IP67 water and "
            "dust resistance and 12 hours of playback. Pair two for stereo.",
            (("Connectivity", "Bluetooth 5.3"), ("Battery", "12 hours"), ("Rating", "IP67")),
            art="speaker", color="#e67e22"),
    Product(2, "Sony WH-1000XM5 Wireless Headphones", "Sony", "audio",
            399.99, 4.6, 8120, "2022-05-20",
            "Industry-leading noise cancelling, 30-hour battery",
            "Over-ear headphones with eight microphones for noise cancelling and clear calls, and "
            "30 hours of battery life.",
            (("Type", "Over-ear"), ("Battery", "30 hours"), ("Noise cancelling", "Yes")),
            art="headphones", color="#2d3436"),
    Product(3, "JBL Flip 6 Portable Speaker", "JBL", "audio",
            129.95, 4.7, 10432, "2022-01-04",
            "Bold sound, IP67, 12 hours of play",
            "A rugged cylinder speaker with a separate tweeter, PartyBoost pairing and 12 hours of"
            " playtime.",
            (("Connectivity", "Bluetooth 5.1"), ("Battery", "12 hours"), ("Rating", "IP67")),
            art="speaker", color="#0984e3"),
    Product(4, "Apple AirPods Pro (2nd generation)", "Apple", "audio",
            249.0, 4.7, 15872, "2023-09-22",
            "Active noise cancellation, USB-C MagSafe case",
            "Earbuds with adaptive audio, active noise cancellation, transparency mode and a USB-C"
            " MagSafe charging case.",
            (("Type", "In-ear"), ("Battery", "6 hours (30 with case)"),
             ("Noise cancelling", "Yes")),
            art="earbuds", color="#f5f6fa"),
    Product(5, "Bose QuietComfort Earbuds II", "Bose", "audio",
            279.0, 4.3, 3204, "2022-09-15",
            "CustomTune noise cancelling earbuds",
            "Earbuds that tune their noise cancelling to the shape of your ears, with three sizes "
            "of tips and stability bands.",
            (("Type", "In-ear"), ("Battery", "6 hours"), ("Noise cancelling", "Yes")),
            art="earbuds", color="#2f3640"),
    Product(40, "Logitech MX Master 3S Mouse", "Logitech", "accessories",
            99.99, 4.7, 6411, "2022-05-24",
            "Quiet clicks, 8K DPI, MagSpeed scroll wheel",
            "An ergonomic wireless mouse with quiet clicks, an 8000 DPI sensor that tracks on "
            "glass and the MagSpeed electromagnetic scroll wheel.",
            (("Connectivity", "Bluetooth, Logi Bolt"), ("Battery", "70 days")),
            art="mouse", color="#57606f"),
    Product(41, "Dell 27 4K USB-C Monitor S2722QC", "Dell", "accessories",
            329.99, 4.4, 1580, "2021-09-14",
            "27\" 4K IPS with 65 W USB-C power delivery",
            "A 27-inch 4K monitor with one cable for video, data and 65 W charging, and built-in "
            "speakers.",
            (("Panel", "27\" 4K IPS"), ("Ports", "USB-C 65 W, 2× HDMI")),
            art="monitor", color="#2f3542"),
    Product(42, "Samsung T7 Portable SSD 1TB", "Samsung", "accessories",
            89.99, 4.8, 21990, "2020-03-03",
            "Up to 1,050 MB/s, pocket-size aluminium",
            "A credit-card-size external SSD with USB 3.2 Gen 2 speeds and password protection.",
            (("Capacity", "1 TB"), ("Interface", "USB 3.2 Gen 2")),
            art="drive", color="#74b9ff"),
    Product(43, "Anker 7-in-1 USB-C Hub", "Anker", "accessories",
            35.99, 4.4, 9870, "2021-02-10",
            "4K HDMI, 100 W pass-through, SD and microSD",
            "A compact hub that adds HDMI, two USB-A ports, SD and microSD readers and 100 W power"
            " pass-through to a USB-C laptop.",
            (("Ports", "7"), ("Power delivery", "100 W")),
            art="hub", color="#636e72"),
    Product(60, "Google Nest Learning Thermostat", "Google", "smart-home",
            249.99, 4.5, 4410, "2020-10-01",
            "Learns your schedule and saves energy",
            "A thermostat that learns the temperatures you like and builds a schedule around them."
            " Control it from your phone.",
            (("Compatibility", "95% of 24 V systems"), ("Display", "Color ring")),
            art="thermostat", color="#b2bec3"),
    Product(61, "Amazon Echo Dot (5th Gen)", "Amazon", "smart-home",
            49.99, 4.7, 25604, "2022-10-20",
            "Smart speaker with Alexa and a temperature sensor",
            "Amazon's most popular smart speaker, with clearer vocals and deeper bass than before.",
            (("Assistant", "Alexa"), ("Connectivity", "Wi-Fi, Bluetooth")),
            art="dot", color="#30336b"),
    Product(62, "Ring Video Doorbell (2nd Gen)", "Ring", "smart-home",
            99.99, 4.5, 18330, "2020-10-15",
            "1080p HD video, two-way talk, motion alerts",
            "A battery video doorbell with 1080p video, two-way talk and customizable motion "
            "zones.",
            (("Video", "1080p HD"), ("Power", "Battery or wired")),
            art="doorbell", color="#535c68"),
    Product(63, "Philips Hue White & Color Starter Kit", "Philips Hue", "smart-home",
            199.99, 4.6, 7312, "2021-06-01",
            "Three A19 bulbs and the Hue Bridge",
            "Three color bulbs and a Hue Bridge for 16 million colors, scenes and schedules.",
            (("Bulbs", "3 × A19"), ("Bridge", "Included")),
            art="bulb", color="#fdcb6e"),
    Product(64, "TP-Link Kasa Smart Plug Mini (4-pack)", "TP-Link", "smart-home",
            26.99, 4.6, 40122, "2019-08-20",
            "Control lamps and fans from your phone",
            "Four compact Wi-Fi plugs with schedules, away mode and voice control.",
            (("Pack", "4 plugs"), ("Connectivity", "2.4 GHz Wi-Fi")),
            art="plug", color="#dfe6e9"),
    Product(70, "Ninja AF101 Air Fryer, 4 Qt", "Ninja", "kitchen",
            89.99, 4.8, 52210, "2019-09-01",
            "Crisp with up to 75% less fat",
            "A 4-quart air fryer that also roasts, reheats and dehydrates, with a dishwasher-safe "
            "basket.",
            (("Capacity", "4 qt"), ("Power", "1550 W")),
            art="pot", color="#2d3436"),
    Product(71, "Keurig K-Mini Coffee Maker", "Keurig", "kitchen",
            79.99, 4.4, 31280, "2019-03-01",
            "Single-serve brewer, fewer than 5 inches wide",
            "A slim single-serve coffee maker that brews any cup size from 6 to 12 oz.",
            (("Cup sizes", "6-12 oz"), ("Width", "4.5 in")),
            art="coffee", color="#c0392b"),
    Product(72, "Dyson V8 Cordless Vacuum", "Dyson", "kitchen",
            349.99, 4.5, 11654, "2021-04-01",
            "Up to 40 minutes of fade-free suction",
            "A light cordless stick vacuum that converts to a handheld, with a hygienic bin "
            "emptier.",
            (("Runtime", "Up to 40 min"), ("Bin", "0.54 L")),
            art="vacuum", color="#8e44ad"),
    Product(73, "iRobot Roomba 694 Robot Vacuum", "iRobot", "kitchen",
            274.99, 4.2, 20991, "2020-07-01",
            "Wi-Fi robot vacuum that learns your habits",
            "A robot vacuum with a three-stage cleaning system that works with voice assistants.",
            (("Runtime", "90 min"), ("Navigation", "iAdapt")),
            art="robot", color="#2c3e50"),
    Product(74, "Instant Pot Duo 7-in-1, 6 Qt", "Instant Pot", "kitchen",
            99.95, 4.7, 148230, "2018-06-01",
            "Pressure cooker, slow cooker, rice cooker and more",
            "A 6-quart multi-cooker that pressure cooks, slow cooks, steams, sautés and keeps food"
            " warm.",
            (("Capacity", "6 qt"), ("Programs", "13")),
            art="pot", color="#7f8c8d"),
)

# fmt: on

PRODUCTS: dict[int, Product] = {p.pid: p for p in (*OTHERS, *LAPTOPS, *TOOTHBRUSHES)}
FEATURED = (22, 24, 52, 1, 70, 27, 61, 2)  # the home page, in this order (never 1001)


def product(pid: int) -> Product | None:
    return PRODUCTS.get(pid)


def category(slug: str) -> Category | None:
    return next((c for c in CATEGORIES if c.slug == slug), None)


def in_category(slug: str) -> list[Product]:
    """The products of a category, in catalog order (pid)."""
    return sorted((p for p in PRODUCTS.values() if p.in_category(slug)), key=lambda p: p.pid)


def search(query: str) -> list[Product]:
    """Products whose name, brand, category or summary has every word of `query`."""
    words = query.casefold().split()
    if not words:
        return []
    found = []
    for p in sorted(PRODUCTS.values(), key=lambda p: p.pid):
        cat = category(p.category)
        hay = " ".join([p.name, p.brand, p.summary, cat.name if cat else "", p.category]).casefold()
        if p.touch:
            hay += " touch screen touchscreen touch-screen 2-in-1"
        if all(w in hay for w in words) or all(w.rstrip("s") in hay for w in words):
            found.append(p)
    return found


SORTS = {
    "featured": ("Featured", lambda p: p.pid),
    "price-asc": ("Price: low to high", lambda p: p.price),
    "price-desc": ("Price: high to low", lambda p: -p.price),
    "rating": ("Customer rating", lambda p: -p.rating),
    "newest": ("Newest arrivals", lambda p: tuple(-int(x) for x in p.released.split("-"))),
}


def sort(products: list[Product], key: str) -> list[Product]:
    _, by = SORTS.get(key, SORTS["featured"])
    return sorted(products, key=by)


# fmt: off
_REVIEWS = {  # author, stars, title, text
    "laptops": (
        ("Priya N.", 5, "Fast and light",
         "Boots in seconds and handles twenty browser tabs plus video calls without a hiccup."),
        ("Marcus T.", 4, "Great screen",
         "The display is sharp and bright. Speakers are only average, so I use headphones."),
        ("Elena V.", 3, "Battery could be better",
         "Solid for the price, but I get about five hours on a charge with the brightness up."),
        ("Jordan K.", 4, "Good keyboard",
         "Comfortable keys and a big touchpad. Fan gets loud when exporting video."),
        ("Sam W.", 2, "Runs warm", "Works fine for documents, but the bottom gets hot on my lap."),
        ("Aisha B.", 5, "Perfect for school",
         "Light enough to carry all day. Setup took ten minutes."),
    ),
    "toothbrushes": (
        ("Linda M.", 5, "Teeth feel polished",
         "My dentist noticed the difference at my last cleaning."),
        ("Chris D.", 4, "Does the job", "Timer is handy. Replacement heads are a bit pricey."),
        ("Nora P.", 3, "Okay", "Cleans well enough, but the battery indicator is vague."),
        ("Tom R.", 5, "Worth it", "Gentle on my gums and the charge lasts for weeks."),
        ("Yuki S.", 4, "Travel friendly", "Small enough for my toiletry bag."),
    ),
    "other": (
        ("Ben A.", 5, "Exactly as described",
         "Easy setup and it has worked flawlessly for months."),
        ("Carla G.", 4, "Very good", "Does what it says. Instructions could be clearer."),
        ("Dev S.", 3, "Fine", "Good value, a few rough edges in the app."),
        ("Fatima L.", 5, "Love it", "Use it every day. Would buy again."),
        ("Greg H.", 2, "Stopped working once", "Needed a reset after a week, fine since then."),
    ),
}
# fmt: on

_DATES = ("2024-08-02", "2024-06-19", "2024-05-07", "2024-03-28", "2024-01-15")


def reviews_of(p: Product) -> list[Review]:
    """Three sample reviews of a product (deterministic)."""
    pool = _REVIEWS.get(p.category, _REVIEWS["other"])
    picks = [pool[(p.pid + i * 2) % len(pool)] for i in range(3)]
    return [
        Review(a, s, t, b, _DATES[(p.pid + i) % len(_DATES)])
        for i, (a, s, t, b) in enumerate(picks)
    ]
