"""The Harbourton Ledger's content: sections, articles (all fictional) and newsletters."""

from __future__ import annotations

from dataclasses import dataclass

SITE_NAME = "The Harbourton Ledger"
TODAY = "Friday, May 17, 2024"
TRIAL_PRICE = "$14.99"


@dataclass(frozen=True)
class Section:
    slug: str
    name: str
    color: str


@dataclass(frozen=True)
class Article:
    slug: str
    section: str  # a section slug
    headline: str
    dek: str  # the standfirst under the headline
    author: str
    role: str  # the author's beat
    date: str  # YYYY-MM-DD
    read_min: int
    free: bool  # marked "Free" on the cards
    art: tuple[str, str, str]  # picture: background, accent, motif (see _art.html)
    caption: str
    body: tuple[str, ...]
    newsletter: str = ""  # a newsletter slug the story recommends at its end


@dataclass(frozen=True)
class Newsletter:
    slug: str
    name: str
    cadence: str
    blurb: str


SECTIONS = (
    Section("city", "City", "#b3261e"),
    Section("world", "World", "#1d4e89"),
    Section("business", "Business", "#0f6e5c"),
    Section("science", "Science", "#6b3fa0"),
    Section("climate", "Climate", "#2e7d32"),
    Section("culture", "Culture", "#a3541b"),
    Section("sport", "Sport", "#00695c"),
)

NEWSLETTERS = (
    Newsletter(
        "morning-briefing",
        "Morning Briefing",
        "Weekdays, 6 a.m.",
        "The five stories you need before your first coffee, picked by our night editors.",
    ),
    Newsletter(
        "climate-desk",
        "Climate Desk",
        "Thursdays",
        "Energy, weather and the transition, explained by our climate team.",
    ),
    Newsletter(
        "culture-club",
        "Culture Club",
        "Saturdays",
        "Exhibitions, books and concerts worth leaving the house for.",
    ),
    Newsletter(
        "match-day",
        "Match Day",
        "Mondays",
        "Results, tables and the weekend's talking points from the Ledger sports desk.",
    ),
)

ARTICLES = (
    Article(
        "night-trams-return",
        "city",
        "Night trams return to Harbourton after a decade",
        "Line 4 will run every 20 minutes until 3 a.m. on weekends from June, the transit "
        "authority says, ending years of complaints from shift workers.",
        "Ingrid Solberg",
        "Transport correspondent",
        "2024-05-16",
        5,
        True,
        ("#f3d9a4", "#b3261e", "tram"),
        "A Line 4 tram at Quayside stop during a night test run on Tuesday.",
        (
            "For the first time since 2014, Harbourton will have trams running through the "
            "night. The Harbourton Transit Authority confirmed on Thursday that Line 4, which "
            "links the Old Harbour with the university district and Eastfield, will run every "
            "20 minutes between midnight and 3 a.m. on Fridays and Saturdays from June 7.",
            "The service was cut during the budget crisis of 2014, when the authority closed "
            "every route after 11:30 p.m. Since then, nurses, bakers and hospitality staff have "
            "relied on a patchy night-bus network that many described as slow and unreliable.",
            '"We heard the same story at every public meeting," said the authority\'s chair, '
            'Mikael Brandt. "People finishing a late shift were waiting 50 minutes in the cold '
            'or paying for a taxi they could not afford." The pilot will cost about 1.8 million '
            "a year and will be reviewed after twelve months.",
            "Ridership groups welcomed the decision but said weekday nights should follow. The "
            "authority said it would publish passenger counts every quarter and that a second "
            "line, along the ring road, could be added in 2025 if demand is strong.",
        ),
    ),
    Article(
        "glowing-crustacean-azores",
        "science",
        "Deep-sea survey finds a glowing crustacean off the Azores",
        "Scientists filmed the animal at a depth of 2,300 metres and say it may be one of "
        "dozens of species still unnamed in the region.",
        "Daniel Okoye",
        "Science editor",
        "2024-05-15",
        6,
        True,
        ("#0d1b3d", "#5ad1e6", "deep"),
        "A still from the survey footage, taken by a remotely operated vehicle.",
        (
            "A research team working from the survey ship RV Kestrel has filmed a small, "
            "translucent crustacean that gives off pulses of blue light, during a six-week "
            "expedition along the Mid-Atlantic Ridge south of the Azores.",
            "The animal, about four centimetres long, was recorded by a remotely operated "
            "vehicle at 2,300 metres. The team collected two specimens, which are now being "
            "studied at the Harbourton Marine Institute. Preliminary genetic tests suggest the "
            "species has not been described before.",
            '"Every dive brought something we could not identify on the spot," said the '
            "expedition's chief scientist, Dr. Helena Marques. \"This crustacean stood out "
            'because of the way it flashes in sequence, almost like a signal."',
            "The expedition also mapped 1,400 square kilometres of sea floor. The researchers "
            "said their findings would support the case for a protected area in the region, "
            "where several mining companies have applied for exploration licences.",
        ),
    ),
    Article(
        "north-sea-wind-approval",
        "climate",
        "Offshore wind farm in the North Sea gets final approval",
        "The 1.4-gigawatt Dogger Reach project can now start construction, with first power "
        "expected in 2027.",
        "Lucía Ferrer",
        "Climate correspondent",
        "2024-05-14",
        7,
        True,
        ("#cfe6f5", "#2e7d32", "wind"),
        "Turbine foundations being loaded at Harbourton's east quay.",
        (
            "The government granted final consent on Tuesday to Dogger Reach, an offshore wind "
            "farm that will sit 120 kilometres off the coast and, at 1.4 gigawatts, would be "
            "large enough to supply about 1.6 million homes.",
            "The developer, a joint venture of two utilities and a pension fund, said "
            "construction of the 94 turbines would begin next spring. Parts will be assembled at "
            "Harbourton's east quay, bringing an estimated 900 jobs to the port.",
            "Fishing organisations had objected to the project's cable route, which crosses "
            "traditional grounds. The final consent includes a requirement to bury the cables "
            "and to fund a monitoring programme for fish stocks over fifteen years.",
            "Environmental groups welcomed the decision but warned that grid connections remain "
            'the bottleneck. "Approvals are speeding up; the wires are not," said Ruth Adeyemi '
            "of the Coastal Energy Coalition.",
        ),
        newsletter="climate-desk",
    ),
    Article(
        "freshfield-closures",
        "business",
        "Grocery chain Freshfield to close 40 stores",
        "The retailer blames rising rents and a shift to online orders; about 1,100 jobs are "
        "at risk.",
        "Owen Pritchard",
        "Retail reporter",
        "2024-05-16",
        4,
        False,
        ("#e4f2ea", "#0f6e5c", "bars"),
        "Freshfield's flagship store on Market Street.",
        (
            "Freshfield, the regional grocery chain, said on Thursday it would close 40 of its "
            "212 stores by the end of the year, most of them small convenience shops in town "
            "centres.",
            "The company said rents had risen by a fifth since 2021 while more customers were "
            "ordering online. Staff in affected stores will be offered roles elsewhere where "
            "possible, it said.",
            "Unions called the announcement a blow to high streets already struggling with "
            "empty units and asked the company to publish the full list of stores.",
        ),
    ),
    Article(
        "coastal-towns-season",
        "world",
        "Coastal towns brace for a record tourist season",
        "Mayors along the Atlantic coast are testing visitor caps, new ferry timetables and "
        "higher parking fees.",
        "Sofia Albrecht",
        "Europe correspondent",
        "2024-05-13",
        5,
        False,
        ("#fde7c8", "#1d4e89", "waves"),
        "Ferries in the harbour at dusk.",
        (
            "From fishing villages to resort towns, local councils along the coast are "
            "preparing for what tourism boards expect to be the busiest summer on record.",
            "Several towns will trial booking systems for their most popular beaches, while "
            "others are raising parking fees to push day visitors onto buses and ferries.",
            "Residents' groups say the measures are overdue. Business owners are divided: some "
            "fear the caps will drive visitors elsewhere.",
        ),
    ),
    Article(
        "lindqvist-museum-reopens",
        "culture",
        "The Lindqvist Museum reopens with a bigger, brighter home",
        "After three years of building work, the modern art museum doubles its gallery space "
        "and adds a free rooftop terrace.",
        "Marguerite Osei",
        "Arts critic",
        "2024-05-12",
        6,
        True,
        ("#f6e3ef", "#a3541b", "frames"),
        "The new top-lit gallery on the museum's third floor.",
        (
            "The Lindqvist Museum of Modern Art reopens to the public on Saturday after a "
            "renovation that has doubled its exhibition space and opened up the old grain store "
            "behind it.",
            "The opening show brings together 120 works from the permanent collection, many of "
            "which have not been seen for decades because there was no room to hang them.",
            "Admission to the collection remains free. The rooftop terrace, with views across "
            "the harbour, will open daily until 9 p.m. during the summer.",
        ),
    ),
    Article(
        "rovers-clinch-league",
        "sport",
        "Harbourton Rovers clinch the league on the final day",
        "A late header from captain Jonas Vik sealed a 2-1 win and the club's first title in "
        "eighteen years.",
        "Callum Reid",
        "Football writer",
        "2024-05-12",
        4,
        False,
        ("#dff3ef", "#00695c", "ball"),
        "Rovers' players celebrate in front of the east stand.",
        (
            "Harbourton Rovers needed a win and got one, coming from behind to beat Northgate "
            "2-1 in front of a sold-out crowd at the Quay Road ground.",
            "Captain Jonas Vik headed in the winner in the 88th minute, sparking celebrations "
            "that spilled out into the streets around the stadium well into the evening.",
            "The title is the club's first since 2006 and secures a place in European "
            "competition next season.",
        ),
    ),
    Article(
        "sourdough-smells",
        "science",
        "Why does my sourdough starter smell like nail polish?",
        "A hungry starter produces acetone-like compounds. Here is what the chemistry says, and "
        "how to fix it.",
        "Anya Kowalczyk",
        "Food and science writer",
        "2024-05-11",
        5,
        True,
        ("#fbf1dc", "#6b3fa0", "jar"),
        "A starter, fed and bubbling, two hours after a refresh.",
        (
            "If your starter smells sharp and solvent-like, it is almost certainly hungry. When "
            "the yeast and bacteria run out of sugars, they produce ethyl acetate and other "
            "compounds with a nail-polish smell.",
            "Feeding more often, or at a higher ratio of fresh flour to starter, usually solves "
            "the problem within two or three days.",
            "A cooler kitchen slows everything down, which is why many bakers notice the smell "
            "less in winter.",
        ),
    ),
    Article(
        "rates-held",
        "business",
        "Central bank holds interest rates for a third month",
        "Policymakers signal that cuts could come in the autumn if inflation keeps easing.",
        "Owen Pritchard",
        "Retail reporter",
        "2024-05-10",
        3,
        False,
        ("#e8eef7", "#0f6e5c", "bars"),
        "The central bank's headquarters.",
        (
            "The central bank left its main interest rate unchanged on Thursday, as expected, "
            "but two of the nine members of its committee voted for a cut.",
            "Inflation fell to 2.9 percent in April, its lowest level in nearly three years.",
            "Mortgage lenders said fixed-rate deals had already started to fall in anticipation "
            "of cuts later in the year.",
        ),
    ),
    Article(
        "heat-pumps-double",
        "climate",
        "Heat pump installations doubled last year",
        "A grant scheme and falling prices drove the rise, but installers warn of a shortage "
        "of trained engineers.",
        "Lucía Ferrer",
        "Climate correspondent",
        "2024-05-09",
        4,
        False,
        ("#e6f4e7", "#2e7d32", "house"),
        "An air-source heat pump outside a terraced house in Eastfield.",
        (
            "Installations of heat pumps doubled in 2023, according to industry figures "
            "published on Wednesday, helped by a larger grant for households replacing gas "
            "boilers.",
            "Average installed prices fell by about 15 percent over the year as more firms "
            "entered the market.",
            "Installers say the main constraint is now labour: training courses are full and "
            "waiting times for an engineer can stretch to two months.",
        ),
        newsletter="climate-desk",
    ),
)


def article(slug: str) -> Article | None:
    return next((a for a in ARTICLES if a.slug == slug), None)


def section(slug: str) -> Section | None:
    return next((s for s in SECTIONS if s.slug == slug), None)


def newsletter(slug: str) -> Newsletter | None:
    return next((n for n in NEWSLETTERS if n.slug == slug), None)


def in_section(slug: str) -> list[Article]:
    return [a for a in ARTICLES if a.section == slug]


def search(query: str) -> list[Article]:
    """Articles whose headline, standfirst, author or body mention every word of `query`."""
    words = [w for w in query.casefold().split() if w]
    if not words:
        return []
    found = []
    for art in ARTICLES:
        text = " ".join((art.headline, art.dek, art.author, *art.body)).casefold()
        if all(w in text for w in words):
            found.append(art)
    return found
