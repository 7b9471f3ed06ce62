"""Domain copy for RUC-synth pages: site names, navigation, items, actions and task phrasing."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_ADJ = [
    "Aurora",
    "Nimbus",
    "Cobalt",
    "Summit",
    "Harbor",
    "Velvet",
    "Echo",
    "Lumen",
    "Atlas",
    "Cedar",
    "Nova",
    "Orbit",
    "Pioneer",
    "Quartz",
    "Sierra",
    "Tidal",
    "Vertex",
    "Willow",
]
_PRODUCTS = [
    "Wireless Headphones",
    "Running Shoes",
    "Espresso Maker",
    "Desk Lamp",
    "Backpack",
    "Smart Watch",
    "Water Bottle",
    "Yoga Mat",
    "Bluetooth Speaker",
    "Office Chair",
    "Rain Jacket",
    "Blender",
    "Camera Strap",
    "Mechanical Keyboard",
    "Travel Mug",
    "Air Purifier",
    "Table Fan",
    "Throw Blanket",
]
_HOTEL_KIND = ["Hotel", "Inn", "Suites", "Lodge", "Resort", "Hostel", "Apartments"]
_CITIES = [
    "Lisbon",
    "Kyoto",
    "Denver",
    "Oslo",
    "Valencia",
    "Austin",
    "Porto",
    "Lyon",
    "Seoul",
    "Dublin",
    "Tallinn",
    "Quebec",
    "Bergen",
    "Malaga",
]
_NEWS_SUBJ = [
    "City council",
    "Researchers",
    "Local schools",
    "The central bank",
    "A new study",
    "Transit officials",
    "Farmers",
    "Startups",
    "The museum",
    "Health experts",
    "Engineers",
    "Voters",
]
_NEWS_VERB = [
    "approve",
    "unveil",
    "debate",
    "report on",
    "push back against",
    "celebrate",
    "warn about",
    "invest in",
    "rethink",
    "expand",
]
_NEWS_OBJ = [
    "a new bike network",
    "rising rent prices",
    "a solar farm plan",
    "the budget deficit",
    "weekend train service",
    "ocean heat records",
    "a four-day school week",
    "a river clean-up",
    "AI tutoring tools",
    "the housing shortage",
    "night markets",
    "a library renovation",
]
_SW_PREFIX = ["Pixel", "Byte", "Cloud", "Code", "Data", "Flow", "Note", "Sync", "Vault", "Zip"]
_SW_SUFFIX = ["Forge", "Studio", "Desk", "Pilot", "Sense", "Box", "Kit", "Hub", "Works"]
_OS = ["Windows", "macOS", "Linux", "Android"]

_SITE_WORDS = {
    "Shopping": (
        ["Market", "Cart", "Store", "Bazaar", "Outlet", "Shop"],
        ["Deals", "Electronics", "Home", "Fashion", "Sports", "Kitchen", "Outdoor", "Toys"],
    ),
    "News": (
        ["Times", "Herald", "Daily", "Post", "Journal", "Ledger"],
        ["World", "Politics", "Business", "Tech", "Science", "Sports", "Culture", "Opinion"],
    ),
    "Booking": (
        ["Stay", "Trips", "Rooms", "Travel", "Getaway", "Booker"],
        ["Hotels", "Flights", "Car rental", "Tours", "Deals", "Apartments", "Cruises", "Trains"],
    ),
    "Software": (
        ["Downloads", "Labs", "Apps", "Dev", "Soft", "Tools"],
        ["Products", "Docs", "Pricing", "Blog", "Support", "Community", "Changelog", "Security"],
    ),
}


@dataclass(frozen=True)
class Item:
    title: str
    subtitle: str
    price: str


@dataclass(frozen=True)
class DomainCopy:
    domain: str
    site: str
    nav: list[str]
    sidebar: list[str]
    items: list[Item]
    action: str
    secondary: str
    task_template: str


def _pick(rng: np.random.Generator, seq: list[str], k: int) -> list[str]:
    return [seq[i] for i in rng.choice(len(seq), size=k, replace=False)]


def _item(domain: str, rng: np.random.Generator, used: set[str]) -> Item:
    for _ in range(100):
        if domain == "Shopping":
            title = f"{rng.choice(_ADJ)} {rng.choice(_PRODUCTS)}"
            sub, price = (
                f"{int(rng.integers(12, 2400))} reviews",
                f"${int(rng.integers(9, 400))}.99",
            )
        elif domain == "News":
            title = f"{rng.choice(_NEWS_SUBJ)} {rng.choice(_NEWS_VERB)} {rng.choice(_NEWS_OBJ)}"
            sub, price = f"{int(rng.integers(2, 12))} min read", f"{int(rng.integers(1, 23))}h ago"
        elif domain == "Booking":
            title = f"{rng.choice(_ADJ)} {rng.choice(_HOTEL_KIND)} {rng.choice(_CITIES)}"
            sub = f"{rng.integers(70, 99) / 10:.1f} rating"
            price = f"${int(rng.integers(49, 420))} / night"
        else:
            title = f"{rng.choice(_SW_PREFIX)}{rng.choice(_SW_SUFFIX)} for {rng.choice(_OS)}"
            sub = f"Version {int(rng.integers(1, 9))}.{int(rng.integers(0, 20))}"
            price = f"{int(rng.integers(8, 400))} MB"
        if title not in used:
            used.add(title)
            return Item(title, sub, price)
    raise RuntimeError("could not draw a distinct item title")


def domain_copy(domain: str, n_items: int, rng: np.random.Generator, words: dict) -> DomainCopy:
    """Deterministic copy for one page of `domain` with `n_items` items; its card actions and
    task phrasing come from the family's wording bank `words`."""
    site_words, sections = _SITE_WORDS[domain]
    site = f"{rng.choice(_ADJ)}{rng.choice(site_words)}"
    nav = _pick(rng, sections, int(rng.integers(3, 7)))
    sidebar = _pick(rng, sections, int(rng.integers(3, 6)))
    used: set[str] = set()
    items = [_item(domain, rng, used) for _ in range(n_items)]
    options = words["actions"][domain]
    action = options[int(rng.integers(len(options)))][0]
    secondary = options[int(rng.integers(len(options)))][1]
    task = options[int(rng.integers(len(options)))][2]
    return DomainCopy(domain, site, nav, sidebar, items, action, secondary, task)
