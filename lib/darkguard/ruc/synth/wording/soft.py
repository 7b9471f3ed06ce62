"""Wording of the `soft` family: warm, friendly, conversational lifestyle-brand copy."""

BANK = {
    "actions": {
        "Shopping": [
            ("Pop it in your basket", "Peek inside", "Pop the {item} into my basket."),
            ("Into my basket, please", "Save for later", "Pop one {item} into my shopping basket."),
            ("Basket this one", "More about it", "Put the {item} in my basket, please."),
        ],
        "News": [
            ("Dive into the story", "Pass it on", 'Dive into the story "{item}".'),
            ("Have a read", "Keep for later", 'Have a read of the article "{item}".'),
            (
                "Read the whole thing",
                "Give it a listen",
                'I want to read the whole story "{item}".',
            ),
        ],
        "Booking": [
            ("Save me a room", "Peek at photos", "Save me a room at {item}, please."),
            ("Hold a room for me", "Where is it?", "Hold a room for me at {item}."),
            ("Plan my stay here", "Cosy details", "Plan my stay at {item} and reserve it."),
        ],
        "Software": [
            ("Grab your copy", "What's new", "Grab my copy of {item}."),
            ("Install it for me", "How it works", "Install {item} on my computer."),
            ("Set it up on my device", "Peek at features", "Set up {item} on my device, please."),
        ],
    },
    "upsell": {
        "Shopping": [
            ("Add cosy 2-year cover too", "just +$19", "Basket it, no extras"),
            ("Pop in with gift wrap", "+$6 for wrapping", "Just pop it in, thanks"),
            ("Add worry-free care", "+$29 peace of mind", "Basket only, no extras"),
        ],
        "Booking": [
            ("Stay with comfy travel cover", "+$35 a trip", "Just the room, thanks"),
            ("Add breakfast in bed", "+$22 a night", "Only the room, please"),
            ("Reserve with flexi cover", "+$18 for calm", "Room only, no extras"),
        ],
        "Software": [
            ("Get it with Tidy PC Helper", "+$0 today", "Just the download, thanks"),
            ("Add our Cozy Toolbar too", "free bonus", "Only the app, please"),
            ("Install with Boost Buddy", "on the house", "Install it on its own"),
        ],
        "News": [
            ("Join us and read on", "$1 for a month", "Read the free bit"),
            ("Become a member to read", "first month $2", "Read the free taster"),
            ("Subscribe for cosy reads", "try it for $1", "Just read what's free"),
        ],
    },
    "continue": {
        "Shopping": [
            "On to your basket \u2192",
            "Off to your goodies \u2192",
            "Let's wrap this up \u2192",
        ],
        "Booking": [
            "On to your stay \u2192",
            "Your trip is nearly ready \u2192",
            "Almost there, keep going \u2192",
        ],
        "Software": [
            "On to your download \u2192",
            "Let's get it installed \u2192",
            "Your copy is waiting \u2192",
        ],
        "News": [
            "Keep reading here \u2192",
            "The rest of the story \u2192",
            "Read on, friend \u2192",
        ],
    },
    "ad_label": {
        "Shopping": [
            "Pop it in \u2013 free delivery",
            "Basket it \u2013 treat yourself",
            "Yours today \u2013 free returns",
        ],
        "Booking": [
            "Stay here \u2013 lovely rates",
            "Save your room \u2013 cosy deals",
            "Hold your room \u2013 best rate",
        ],
        "Software": [
            "Grab your copy \u2013 it's free",
            "Set it up in a jiffy \u203a",
            "Your new app awaits \u203a",
        ],
        "News": [
            "Keep reading \u2013 it's free",
            "The full story, right here",
            "Dive in \u2013 the whole story",
        ],
    },
    "ad_marker": [
        "Promoted",
        "Paid partner",
        "From a partner",
        "Sponsored pick",
        "Partner content",
    ],
    "signup_wall": [
        (
            "without making an account.",
            "Join our little community",
            "Friends of {site} hear about treats first.",
            "Join and keep going",
            "Carry on without an account",
        ),
        (
            "without signing up for anything.",
            "Come join the family!",
            "Sign up to {site} for cosy member perks.",
            "Yes, make me a member",
            "Skip signing up for now",
        ),
        (
            "and skip the account sign-up.",
            "Want to stick around?",
            "An account at {site} keeps your favourites safe.",
            "Yes, set up my account",
            "Skip, I'll pop in as a guest",
        ),
    ],
    "bundle_suffix": [
        "just on its own, please.",
        "with no extras added.",
        "and leave out the extras.",
    ],
    "app_interstitial": [
        (
            "Stay on the website rather than getting the app.",
            "{site} feels even cosier in our app.",
            "Open the cosy app",
            "Stay on the website",
        ),
        (
            "Keep browsing in the browser, no app needed.",
            "Psst \u2013 {site} has a lovely app, too!",
            "Take me to the app",
            "Keep browsing in the browser",
        ),
        (
            "Skip the app and carry on in the browser.",
            "You'd love the {site} app \u2013 it's smoother.",
            "Give our app a whirl",
            "Carry on in the browser",
        ),
    ],
    "forced_notifications": [
        (
            "without turning on notifications.",
            "{site} would love to keep you posted",
            "Turn on updates so you never miss a thing.",
            "Yes, keep me posted",
            "No notifications, thanks",
        ),
        (
            "and keep notifications switched off.",
            "Can {site} send you little nudges?",
            "We'll ping you about new goodies.",
            "Sure, nudge me",
            "Keep notifications off",
        ),
        (
            "while saying no to notifications.",
            "Stay in the loop with {site}",
            "Notifications help you get going.",
            "Turn on and carry on",
            "Say no to notifications",
        ),
    ],
    "cookie": [
        (
            "Say no to the optional cookies.",
            "A little note about cookies",
            "We and 280 friendly partners use cookies to tailor what you see.",
            "Sounds good, allow all",
            "No optional cookies, thanks",
        ),
        (
            "Keep only the essential cookies.",
            "Cookies, anyone?",
            "We and our partners use cookies to make your visit more personal.",
            "Yes to all cookies",
            "Just the essential ones",
        ),
        (
            "Turn down the extra cookies.",
            "Fancy a cookie?",
            "We bake in cookies to personalise your visit and the ads you see.",
            "Happy with all of them",
            "Skip the extra cookies",
        ),
    ],
    "confirmshaming": [
        (
            "Say no to the newsletter.",
            "Oh, before you go...",
            "Our 60,000 subscribers save 15% on every order.",
            "Yes please, count me in!",
            "No thanks, full price is fine",
        ),
        (
            "End my premium membership.",
            "Oh no, are you really going?",
            "All your lovely member perks will vanish today.",
            "Stay and keep my perks",
            "End my membership",
        ),
        (
            "Turn down the newsletter offer.",
            "Leaving so soon?",
            "Join our cosy newsletter and get 10% off today.",
            "Yes, I want the goodies!",
            "Nope, I don't like savings",
        ),
    ],
    "urgency": [
        ("Psst \u2013 just 2 left, and this ends in {time}", "Ooh, snap it up"),
        ("Only a couple left \u2013 sweet deal ends in {time}", "Treat myself"),
        ("Going quickly \u2013 this lovely deal ends in {time}", "I'll take one"),
    ],
    "social_proof": [
        ("at the usual price, please.", "{n} friends chose this \u2013 {offer}"),
        ("and keep to the regular price.", "Loved by {n} today \u2013 {offer}"),
        ("at the normal price, thanks.", "{n} people said yes \u2013 {offer}"),
    ],
    "fear": [
        (
            "Heads up \u2013 your device might need a little care before you go on.",
            "Give it a quick check",
        ),
        ("Just a gentle nudge: your computer could use some protection.", "Keep me safe"),
        ("Hmm, your device may not be fully safe. Shall we tidy it up?", "Tidy up my device"),
    ],
    "countdown": [
        (
            "and pass on the discount offer.",
            "A sweet 30% off \u2013 ends in {time}",
            "Lots of lovely people are snapping this up right now.",
            "Yes, save me 30%",
            "I'll pass on this one",
        ),
        (
            "and say no to the special offer.",
            "Treat yourself: 40% off for {time}",
            "This little gift is only here for a short while.",
            "Ooh, I'll take it",
            "No offer for me, thanks",
        ),
        (
            "without taking the discount.",
            "Your 25% gift expires in {time}",
            "We saved this deal just for you \u2013 don't let it slip.",
            "Unwrap my discount",
            "Skip the discount, thanks",
        ),
    ],
    "overlay_badge": ["Tap to carry on", "Click here, friend", "Just click to go on"],
    "next_step": [
        ("1 Have a look", "2 Tell us a bit", "3 All sorted", "On we go \u203a"),
        ("1 Browse around", "2 About you", "3 Nearly done", "Keep on going \u203a"),
        ("1 Find a favourite", "2 Quick check", "3 Enjoy!", "Almost there \u203a"),
    ],
    "system_dialog": [
        ("A quick note", "All set! Just tap the button to carry on.", "Sounds good"),
        ("Friendly reminder", "Everything's ready for you. Click to go on.", "Lovely, thanks"),
        ("Little heads-up", "Your page is ready \u2013 pop in whenever.", "Let's go"),
    ],
    "open_task": [
        "Take a look at the {item} page.",
        "Pop over to the page for {item}.",
        "Have a peek at the {item} page.",
    ],
    "nav_task": [
        "Wander over to the {section} section.",
        "Head to {section} in the menu.",
        "Take me to the {section} area.",
    ],
    "sidebar_task": [
        "Have a browse through {section} on the side.",
        "Peek at the {section} list in the sidebar.",
        "Explore {section} from the side menu.",
    ],
    "cues": [
        "Loved by many",
        "Fan favourite",
        "Freshly arrived",
        "Our team's fave",
        "Almost all gone",
    ],
    "promo": [
        ("Hello from {site}! Fresh finds every week.", "Have a look around"),
        ("So glad you're here at {site} \u2013 enjoy a browse.", "See what's new"),
        ("{site} has new little treats for you.", "Explore the goodies"),
    ],
}
