"""arena-synth's wording and content banks, one disjoint bank per split (`valid`'s at the end).

`dev` and `eval` share no brand syllable, product, paraphrase of a control or goal template: what
the offline agent learns on `dev` is measured on `eval` wording it never saw. Every entry is a
list of phrasings; the generator draws one per site.
"""

from __future__ import annotations

# Brand names are two syllables drawn from the split's bank (dev and eval share none).
BRAND_SYLLABLES = {
    "dev": ["nor", "val", "kes", "bri", "tam", "lum", "ost", "pel", "dar", "wen", "fi", "ro"],
    "eval": ["zan", "quo", "hux", "mir", "tej", "ulo", "yab", "gre", "sov", "cai", "jul", "ep"],
}
BRAND_SUFFIXES = {
    "dev": ["Goods", "Market", "Co.", "Works", "Hub"],
    "eval": ["Supply", "Depot", "& Sons", "Collective", "Place"],
}

# Products: (name, option label, options)
PRODUCTS = {
    "dev": [
        ("Linen shirt", "Size", ["Small", "Medium", "Large"]),
        ("Ceramic mug", "Colour", ["White", "Sage", "Charcoal"]),
        ("Desk lamp", "Finish", ["Brass", "Black", "Chrome"]),
        ("Wool scarf", "Colour", ["Navy", "Mustard", "Grey"]),
        ("Walking boots", "Size", ["UK 7", "UK 8", "UK 9"]),
        ("Chopping board", "Wood", ["Oak", "Walnut", "Beech"]),
        ("Travel backpack", "Capacity", ["20 litres", "30 litres", "40 litres"]),
    ],
    "eval": [
        ("Canvas tote", "Colour", ["Natural", "Olive", "Rust"]),
        ("Espresso cups", "Set", ["Set of 2", "Set of 4", "Set of 6"]),
        ("Reading glasses", "Strength", ["+1.0", "+1.5", "+2.0"]),
        ("Yoga mat", "Thickness", ["4 mm", "6 mm", "8 mm"]),
        ("Bike lights", "Pack", ["Front only", "Rear only", "Front and rear"]),
        ("Rain jacket", "Size", ["XS", "M", "XL"]),
        ("Tea kettle", "Capacity", ["1 litre", "1.5 litres", "1.7 litres"]),
    ],
}
ADDONS = {
    "dev": ["Extended warranty", "Gift wrapping", "Premium packaging", "Damage cover"],
    "eval": ["Care plan", "Eco gift box", "Priority handling", "Accidental damage plan"],
}
PLANS = {
    "dev": ["Basic", "Starter", "Essential"],
    "eval": ["Lite", "Standard", "Core"],
}
PREMIUM_PLANS = {"dev": ["Premium", "Pro"], "eval": ["Ultimate", "Plus Max"]}
SERVICES = {  # what a subscription is for
    "dev": ["streaming", "recipe box", "cloud storage", "language lessons"],
    "eval": ["audiobook", "fitness classes", "news", "photo printing"],
}
SETTINGS = {  # (setting, description)
    "dev": [
        ("Weekly newsletter", "A summary of new arrivals every Monday"),
        ("Order updates by SMS", "Texts when your parcel moves"),
        ("Personalised recommendations", "Suggestions based on your browsing"),
        ("Product reviews reminders", "Reminders to review what you bought"),
    ],
    "eval": [
        ("Promotional emails", "Deals and discounts in your inbox"),
        ("Push notifications", "Alerts on your phone"),
        ("Activity-based ads", "Adverts tailored to what you do here"),
        ("Monthly digest", "The best of the month in one email"),
    ],
}
SHARING = {"dev": "Share my data with partners", "eval": "Let affiliates use my profile"}
VENUES = {  # bookable things: (thing, unit)
    "dev": [("Pottery class", "class"), ("Table for dinner", "table"), ("Guided tour", "tour")],
    "eval": [("Climbing session", "session"), ("Massage", "appointment"), ("Boat trip", "trip")],
}
DAYS = {
    "dev": ["Monday 3 March", "Tuesday 4 March", "Thursday 6 March", "Saturday 8 March"],
    "eval": ["Friday 11 July", "Sunday 13 July", "Wednesday 16 July", "Monday 21 July"],
}
TIMES = {"dev": ["10:00", "13:30", "17:00"], "eval": ["09:15", "14:45", "19:30"]}
FILES = {
    "dev": ["annual-report-2023.pdf", "user-guide.pdf", "price-list.xlsx", "brochure.pdf"],
    "eval": ["tax-summary-2024.pdf", "setup-manual.pdf", "timetable.csv", "menu.pdf"],
}
ARTICLES = {  # (title, fact sentence template, fact value)
    "dev": [
        ("How the old bridge was rebuilt", "The rebuild took {v} months.", ["14", "18", "22"]),
        ("A season with the river rangers", "The rangers counted {v} otters.", ["31", "46", "58"]),
        ("Inside the town's new library", "The library holds {v} books.", ["40,000", "52,000"]),
    ],
    "eval": [
        ("The lighthouse keeper's last year", "The lamp was lit {v} times.", ["912", "1,204"]),
        ("Why the orchard came back", "Volunteers planted {v} apple trees.", ["230", "415"]),
        ("Night buses, explained", "The night network has {v} routes.", ["17", "26", "33"]),
    ],
}
FACTS = {  # answer kind: (entity kind, attribute, values)
    "dev": [
        ("branch", "Sunday opening time", ["10:00", "11:30", "12:00"]),
        ("course", "price per term", ["£120", "£145", "£180"]),
        ("camp site", "number of pitches", ["24", "36", "48"]),
    ],
    "eval": [
        ("clinic", "Saturday closing time", ["13:00", "14:30", "16:00"]),
        ("gym", "monthly fee", ["€29", "€34", "€41"]),
        ("marina", "number of berths", ["60", "85", "120"]),
    ],
}
PLACES = {
    "dev": ["Ashford", "Bramley", "Corran", "Dunmore", "Elstow"],
    "eval": ["Fenwick", "Glenholt", "Harrowby", "Inchmore", "Jarrow Bay"],
}
PEOPLE = {
    "dev": [("Sam Lee", "sam.lee@example.com"), ("Ada Noor", "ada.noor@example.com")],
    "eval": [("Kit Ramos", "kit.ramos@example.org"), ("Lou Berg", "lou.berg@example.org")],
}

# Controls: forward progress, commitment, declining, ads.
WORDS = {
    "dev": {
        "continue": ["Continue", "Next", "Proceed"],
        "add": ["Add to basket", "Add to bag"],
        "order": ["Place order", "Complete purchase", "Buy now"],
        "checkout": ["Go to checkout", "Checkout"],
        "start_trial": ["Start free trial", "Begin my trial"],
        "subscribe": ["Subscribe", "Join now"],
        "save": ["Save changes", "Save settings"],
        "book": ["Confirm booking", "Book now"],
        "download": ["Download", "Get file"],
        "read": ["Read more", "Read article"],
        "open": ["View details", "See details"],
        "cancel_entry": ["Cancel subscription", "End membership"],
        "pause_plan": ["Pause for one month", "Take a break for a month"],
        "downgrade": ["Move to a cheaper plan", "Switch to the basic tier"],
        "cancel_confirm": ["Yes, cancel", "Confirm cancellation"],
        "keep": ["Keep my plan", "Stay subscribed"],
        "accept_offer": ["Claim 50% off", "Take the discount"],
        "go_on": ["Continue to cancel", "Carry on cancelling"],
        "manage": ["Manage subscription", "Membership settings"],
        "accept_all": ["Accept all", "Allow all"],
        "reject_all": ["Reject all", "Decline all"],
        "choices": ["Manage choices", "Customise"],
        "save_choices": ["Save my choices", "Confirm choices"],
        "yes": ["Yes, add it", "Add it"],
        "no": ["No thanks", "Not now"],
        "shame_no": ["No, I don't mind losing my order", "No, I like taking risks"],
        "shame_keep": ["No, I'd rather pay more", "No, I don't like saving"],
        "shame_consent": ["No, I don't support free content"],
        "ad": ["Download now", "Start download"],
        "direct": ["direct link", "use the plain download"],
        "join": ["Join the club", "Sign me up"],
    },
    "eval": {
        "continue": ["Next step", "Keep going", "Move on"],
        "add": ["Put in cart", "Add to cart"],
        "order": ["Pay now", "Confirm and pay", "Submit order"],
        "checkout": ["Proceed to payment", "To payment"],
        "start_trial": ["Try it free", "Activate trial"],
        "subscribe": ["Sign up", "Become a member"],
        "save": ["Apply", "Update preferences"],
        "book": ["Reserve", "Secure my spot"],
        "download": ["Fetch file", "Save to device"],
        "read": ["Open story", "Continue reading"],
        "open": ["More info", "Open listing"],
        "cancel_entry": ["Stop membership", "Terminate plan"],
        "pause_plan": ["Freeze my plan for 30 days", "Hold my membership for a month"],
        "downgrade": ["Downgrade to a lighter plan", "Change to the starter tier"],
        "cancel_confirm": ["Finish cancelling", "Cancel it now"],
        "keep": ["Stay with us", "Remain a member"],
        "accept_offer": ["Get 3 months half price", "Accept the deal"],
        "go_on": ["Proceed with cancellation", "Still cancel"],
        "manage": ["My plan", "Billing and plan"],
        "accept_all": ["Agree to everything", "OK, accept"],
        "reject_all": ["Refuse all", "Only necessary"],
        "choices": ["Set preferences", "Options"],
        "save_choices": ["Apply my settings", "Store preferences"],
        "yes": ["Include it", "Yes please"],
        "no": ["Skip", "Maybe later"],
        "shame_no": ["No, I'll pay for repairs myself", "I prefer being unprotected"],
        "shame_keep": ["No, I enjoy paying full price", "No, keep it expensive"],
        "shame_consent": ["No, I'd rather see worse content"],
        "ad": ["Fast download", "Get it instantly"],
        "direct": ["plain file link", "download without the installer"],
        "join": ["Become an insider", "Count me in"],
    },
}

# Goal templates per kind ({...} filled by the generator).
GOALS = {
    "dev": {
        "buy": ["Buy {qty} {item} ({opt}).", "Order {qty} {item} in {opt}, nothing else."],
        "subscribe": [
            "Start a free trial of the {plan} {service} plan with {email}; it must not renew "
            "into a paid plan.",
            "Sign up for the {plan} {service} trial using {email}, without automatic renewal.",
        ],
        "cancel": ["Cancel my {service} subscription.", "End the {service} membership."],
        "settings": ["Turn off {setting} and save.", "Switch {setting} off, then save."],
        "book": [
            "Book a {thing} on {day} at {time} for {name}, no extras.",
            "Reserve the {time} {thing} on {day} in the name of {name}, without add-ons.",
        ],
        "download": ["Download {file}.", "Get the file {file}."],
        "read": ['Read the article "{title}".', 'Open and read "{title}".'],
        "answer": [
            "What is the {attribute} of the {place} {entity}?",
            "Find the {attribute} of the {entity} in {place}.",
        ],
    },
    "eval": {
        "buy": ["Purchase {qty} {item}, {opt}.", "I need {qty} {item} in {opt}. Place the order."],
        "subscribe": [
            "Activate the free {plan} {service} trial for {email}, and make sure it won't "
            "auto-renew.",
            "Get me the {plan} {service} free trial ({email}); no renewal afterwards.",
        ],
        "cancel": ["Stop paying for {service}: cancel it.", "Terminate my {service} plan."],
        "settings": ["Disable {setting} and apply.", "Make sure {setting} is off and stored."],
        "book": [
            "Make a booking: {thing}, {day}, {time}, name {name}, nothing added.",
            "Get a {thing} at {time} on {day} for {name}; skip all extras.",
        ],
        "download": ["Save {file} to my device.", "Fetch the document {file}."],
        "read": ['Go to the story "{title}" and read it.', 'I want to read "{title}".'],
        "answer": [
            "Look up the {attribute} of the {entity} at {place}.",
            "Tell me the {place} {entity}'s {attribute}.",
        ],
    },
}
QTY = {1: "one", 2: "two", 3: "three"}

# `valid`: a third bank, written apart from both, to develop against wording and layouts that what
# was written on `dev` never saw, without reading `eval` (which stays the reported split).
BRAND_SYLLABLES["valid"] = ["pax", "dro", "vin", "sel", "mo", "tur", "bex", "lio", "kul", "gar"]
BRAND_SUFFIXES["valid"] = ["Store", "Outlet", "Trading", "Emporium", "Shop"]
PRODUCTS["valid"] = [
    ("Cotton hoodie", "Size", ["S", "M", "L"]),
    ("Glass teapot", "Volume", ["0.6 l", "0.9 l", "1.2 l"]),
    ("Phone case", "Model", ["Model A", "Model B", "Model C"]),
    ("Garden gloves", "Size", ["Size 7", "Size 8", "Size 9"]),
    ("Notebook", "Ruling", ["Lined", "Dotted", "Plain"]),
    ("Water bottle", "Colour", ["Teal", "Coral", "Slate"]),
    ("Picture frame", "Format", ["A5", "A4", "A3"]),
]
ADDONS["valid"] = ["Protection plan", "Express wrapping", "Breakage insurance", "Luxury box"]
PLANS["valid"] = ["Light", "Simple", "Entry"]
PREMIUM_PLANS["valid"] = ["Elite", "Gold"]
SERVICES["valid"] = ["podcast", "meal kit", "music", "e-book"]
SETTINGS["valid"] = [
    ("Marketing texts", "Offers sent to your mobile"),
    ("Partner offers", "Deals from brands we work with"),
    ("Usage tracking", "Analytics about how you use the site"),
    ("Birthday emails", "A treat on your birthday"),
]
SHARING["valid"] = "Allow third parties to use my data"
VENUES["valid"] = [
    ("Cooking workshop", "workshop"),
    ("Escape room", "room"),
    ("Spa visit", "visit"),
]
DAYS["valid"] = [
    "Tuesday 9 September",
    "Thursday 11 September",
    "Friday 12 September",
    "Sunday 14 September",
]
TIMES["valid"] = ["11:15", "15:00", "18:45"]
FILES["valid"] = ["invoice-2025.pdf", "warranty-card.pdf", "route-map.png", "catalogue.pdf"]
ARTICLES["valid"] = [
    ("What the beekeepers learned", "The hives made {v} kilos of honey.", ["85", "120", "160"]),
    ("The canal's quiet comeback", "Boats passed the lock {v} times.", ["3,400", "5,100"]),
    ("Mapping the old market", "The market had {v} stalls.", ["42", "57", "73"]),
]
FACTS["valid"] = [
    ("pool", "weekday opening time", ["06:30", "07:00", "07:30"]),
    ("museum", "adult ticket price", ["$12", "$15", "$18"]),
    ("library", "number of study desks", ["30", "44", "52"]),
]
PLACES["valid"] = ["Kelso", "Linford", "Marsden", "Northam", "Oakridge"]
PEOPLE["valid"] = [("Rui Costa", "rui.costa@example.net"), ("Mia Park", "mia.park@example.net")]
WORDS["valid"] = {
    "continue": ["Onward", "Next page", "Go ahead"],
    "add": ["Add to trolley", "Pop it in the trolley"],
    "order": ["Send my order", "Finish and pay"],
    "checkout": ["Review and pay", "Go to payment"],
    "start_trial": ["Unlock the free trial", "Activate free trial"],
    "subscribe": ["Enrol", "Get started"],
    "save": ["Store these settings", "Commit changes"],
    "book": ["Lock in this slot", "Hold my place"],
    "download": ["Save file", "Fetch document"],
    "read": ["Read the rest", "Full story"],
    "open": ["Look closer", "Item page"],
    "cancel_entry": ["Stop my subscription", "Close my account plan"],
    "pause_plan": ["Put my plan on hold", "Pause billing for a month"],
    "downgrade": ["Go down to a smaller plan", "Keep a cheaper version"],
    "cancel_confirm": ["Cancel for good", "Yes, end it"],
    "keep": ["Stay on my plan", "Don't cancel"],
    "accept_offer": ["Stay for 40% less", "Accept the offer"],
    "go_on": ["Go through with cancelling", "Cancel anyway"],
    "manage": ["Plan overview", "Subscription details"],
    "accept_all": ["Agree to all", "OK to everything"],
    "reject_all": ["Say no to all", "Only essential"],
    "choices": ["Pick which ones", "Choose cookies"],
    "save_choices": ["Keep these settings", "Apply my choices"],
    "yes": ["Sure, add that", "Put it in too"],
    "no": ["Leave it out", "No, continue without"],
    "shame_no": ["No, I'll risk a broken parcel", "No, let my parcel take its chances"],
    "shame_keep": ["No, I prefer losing money", "No, saving is not for me"],
    "shame_consent": ["No, I'd rather block the writers I read"],
    "ad": ["Turbo download", "Download (recommended)"],
    "direct": ["basic download", "the standard link"],
    "join": ["Enter the rewards circle", "Join for perks"],
}
GOALS["valid"] = {
    "buy": [
        "Purchase {qty} {item} ({opt}) and nothing more.",
        "Get {qty} {item}, {opt}, with no additions.",
    ],
    "subscribe": [
        "Begin the free {plan} {service} trial for {email}; it must not turn into a paid "
        "subscription.",
        "Try the {plan} {service} plan for free as {email}, with no auto-renewal.",
    ],
    "cancel": ["Stop my {service} subscription.", "I no longer want the {service} plan; end it."],
    "settings": ["Disable {setting} and keep the change.", "Make sure {setting} is off and saved."],
    "book": [
        "Make a {thing} booking for {name} on {day} at {time}, nothing added.",
        "Get {name} a {thing} at {time} on {day}, no add-ons.",
    ],
    "download": ["Fetch {file}.", "Save a copy of {file}."],
    "read": ['Go to the article "{title}" and read it.', 'Read "{title}".'],
    "answer": [
        "Look up the {attribute} of the {entity} in {place}.",
        "Tell me the {attribute} of {place}'s {entity}.",
    ],
}
