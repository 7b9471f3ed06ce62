"""Wording of the `plain` family: direct, neutral storefront copy."""

BANK = {
    "actions": {
        "Shopping": [
            ("Add to cart", "Details", "Add the {item} to the cart."),
            ("Add to bag", "Save", "Put the {item} in my cart."),
            ("Buy now", "Compare", "Add one {item} to the shopping cart."),
        ],
        "News": [
            ("Read more", "Share", 'Open the article "{item}".'),
            ("Read article", "Save", 'Read the story "{item}".'),
            ("Continue reading", "Listen", 'Show me the full article "{item}".'),
        ],
        "Booking": [
            ("Book now", "Details", "Book a room at {item}."),
            ("Reserve", "Map", "Reserve a stay at {item}."),
            ("Select room", "Save", "Make a booking at {item}."),
        ],
        "Software": [
            ("Download", "Release notes", "Download {item}."),
            ("Get it", "Docs", "Get the installer of {item}."),
            ("Download now", "Details", "Start the download of {item}."),
        ],
    },
    "upsell": {
        "Shopping": [("Add with 2-year protection", "+$24", "Add to cart only")],
        "Booking": [("Book with premium insurance", "+$39", "Book room only")],
        "Software": [("Download with PC Booster bundle", "+$0", "Download only")],
        "News": [("Subscribe and read", "$1 trial", "Read free preview")],
    },
    "continue": {
        "Shopping": ["Continue to checkout \u2192"],
        "Booking": ["Continue booking \u2192"],
        "Software": ["Continue to download \u2192"],
        "News": ["Continue reading \u2192"],
    },
    "ad_label": {
        "Shopping": ["ADD TO CART \u2013 FREE SHIPPING"],
        "Booking": ["BOOK NOW \u2013 BEST PRICE"],
        "Software": ["\u2b07 DOWNLOAD NOW"],
        "News": ["READ THE FULL STORY"],
    },
    "ad_marker": ["Advertisement", "Ad", "sponsored"],
    "signup_wall": [
        (
            "without creating an account.",
            "Create a free account to continue",
            "Members of {site} get early access to offers.",
            "Sign up and continue",
            "Continue as guest",
        )
    ],
    "bundle_suffix": ["without any add-ons."],
    "app_interstitial": [
        (
            "Continue on the website instead of installing the app.",
            "Get the {site} app for the full experience.",
            "Open in the app",
            "Continue on the website",
        )
    ],
    "forced_notifications": [
        (
            "without enabling notifications.",
            "{site} wants to send you notifications",
            "Notifications are needed to continue.",
            "Allow and continue",
            "Continue without notifications",
        )
    ],
    "cookie": [
        (
            "Decline the optional cookies.",
            "We value your privacy",
            "We and our 312 partners use cookies to personalise content and ads.",
            "Accept all",
            "Reject optional cookies",
        ),
        (
            "Continue with only the necessary cookies.",
            "We value your privacy",
            "We and our 312 partners use cookies to personalise content and ads.",
            "Accept all",
            "Necessary cookies only",
        ),
        (
            "Reject the non-essential cookies.",
            "We value your privacy",
            "We and our 312 partners use cookies to personalise content and ads.",
            "Accept all",
            "Decline non-essential",
        ),
    ],
    "confirmshaming": [
        (
            "Decline the newsletter offer.",
            "Wait! Don't miss out",
            "Join 80,000 readers and save 20%.",
            "Yes, sign me up!",
            "No thanks, I prefer paying full price",
        ),
        (
            "Cancel my premium membership.",
            "Are you sure you want to leave?",
            "You will lose every member benefit immediately.",
            "Keep my benefits",
            "Cancel membership",
        ),
    ],
    "urgency": [
        ("Hurry! Only 2 left \u2013 offer ends in {time}", "Grab the deal"),
        ("Hurry! Only 2 left \u2013 offer ends in {time}", "Upgrade now"),
        ("Hurry! Only 2 left \u2013 offer ends in {time}", "Claim 40% off"),
        ("Hurry! Only 2 left \u2013 offer ends in {time}", "Get Premium"),
    ],
    "social_proof": [("at the standard price.", "\U0001f525 {n} chose this today \u2013 {offer}")],
    "fear": [
        (
            "Warning: your device may be at risk. Protect it before you continue.",
            "Scan my device now",
        )
    ],
    "countdown": [
        (
            "and skip the discount offer.",
            "50% off ends in {time}",
            "Thousands of shoppers are grabbing this deal right now.",
            "Claim my discount",
            "No thanks, continue",
        )
    ],
    "overlay_badge": ["Click to continue"],
    "next_step": [("1 Choose", "2 Details", "3 Confirm", "Next step \u203a")],
    "system_dialog": [
        ("System message", "Your request is ready. Press OK to continue.", "OK"),
    ],
    "open_task": ["Open the page of {item}."],
    "nav_task": ["Go to the {section} section."],
    "sidebar_task": ["Browse the {section} category."],
    "cues": ["Only 3 left", "Popular", "Bestseller", "Trending", "New"],
    "promo": [("Welcome to {site}. New arrivals every week.", "See all offers")],
}
