"""The hand-written material the anaphora probes are built from (README.md beside this file).

Each domain has: two things of one kind (introduced by the user, each with a detail only it has),
an action done to one of them, a series of options the assistant proposes one at a time, two
named people (one "she", one "he") with something said about each, a standing preference kept
as a fact, and small talk that names none of these. ``make.py`` strings them into conversations.
Tune domains (here) were read while the resolver was written; the held-out domains
(``held_out.py``) were not.
"""

from __future__ import annotations

from typing import Any

Domain = dict[str, Any]

TUNE: list[Domain] = [
    {
        "name": "banking",
        "user": "Priya",
        "assistant": "Asha",
        "kind": "account",
        "items": [
            "I have a savings account with HDFC, the one ending 4417, where my salary lands.",
            "There is also a joint current account at ICICI ending 9032 that my husband and I use for the house.",
        ],
        "labels": ["HDFC savings", "ICICI joint current"],
        "action": "Please move 20,000 rupees from the {label} account into my PPF.",
        "action_ack": "Done: 20,000 rupees moved from the {label} account to your PPF.",
        "options": [
            "How about a fixed deposit for 18 months at 7.1 percent?",
            "Another option is a recurring deposit of 5,000 a month at 6.8 percent.",
            "Or a liquid mutual fund with no lock-in, around 6.5 percent.",
        ],
        "people": [
            (
                "she",
                "My sister Kavya is opening her first account next week, she wants one with no minimum balance.",
            ),
            ("he", "My accountant Rohan said he needs the interest certificates before 15 June."),
        ],
        "fact": (
            "preferred_branch",
            "Koramangala branch",
            "Which branch should I use?",
            "Use my usual branch for the locker.",
        ),
        "small_talk": [
            ("user", "By the way, is the app down today? It logged me out twice."),
            (
                "assistant",
                "There was a short maintenance window this morning; it should be fine now.",
            ),
            ("user", "Also, what does KYC actually stand for?"),
            ("assistant", "Know Your Customer: the identity checks a bank must do."),
            ("user", "Okay. It is raining so hard here, I am not stepping out."),
            ("assistant", "Stay dry! Everything we need can be done online."),
            ("user", "Can you explain the difference between NEFT and IMPS?"),
            ("assistant", "IMPS is instant at any hour; NEFT settles in half-hourly batches."),
            ("user", "Got it, thanks. My phone battery is dying, give me a second."),
            ("assistant", "No problem, take your time."),
            ("user", "Is there a limit on UPI payments per day?"),
            ("assistant", "Most banks allow up to one lakh rupees a day over UPI."),
        ],
    },
    {
        "name": "travel",
        "user": "Daniel",
        "assistant": "Mira",
        "kind": "booking",
        "items": [
            "I have a booking at the Hotel Alma in Lisbon for 3 to 6 May, confirmation LX-2291.",
            "And a second booking at the Casa do Rio guesthouse in Porto for 6 to 9 May, confirmation PO-7710.",
        ],
        "labels": ["Lisbon", "Porto"],
        "action": "Can you add a late checkout to the {label} booking?",
        "action_ack": "I have requested a late checkout for the {label} booking.",
        "options": [
            "The 7:40 TAP flight gets you to Madrid at 10:05.",
            "There is also an Iberia flight at 11:15, arriving 13:40.",
            "Or the 16:30 easyJet, landing at 18:55.",
        ],
        "people": [
            ("she", "My colleague Ines is joining in Porto; she lands on the evening of 7 May."),
            ("he", "My brother Tomas will meet us in Lisbon, he is coming by train from Coimbra."),
        ],
        "fact": (
            "seat_preference",
            "aisle seat",
            "Which seat do you want?",
            "Give me my usual seat on the return flight.",
        ),
        "small_talk": [
            ("user", "Is it going to be hot in Portugal in May?"),
            ("assistant", "Usually pleasant, around 20 to 24 degrees in the afternoon."),
            ("user", "Do I need an adapter for the plugs there?"),
            ("assistant", "Portugal uses type F sockets, the same as most of Europe."),
            ("user", "What is a good pastry to try?"),
            ("assistant", "Pastel de nata, ideally warm with cinnamon."),
            ("user", "My cat knocked my coffee over, one sec."),
            ("assistant", "Oh no! Take your time."),
            ("user", "How much should I tip in restaurants?"),
            ("assistant", "Tipping is modest; rounding up or five to ten percent is common."),
            ("user", "Do they speak English widely?"),
            ("assistant", "In the cities, yes, especially younger people."),
        ],
    },
    {
        "name": "shopping",
        "user": "Aisha",
        "assistant": "Leo",
        "kind": "order",
        "items": [
            "My first order is the blue running shoes, size 8, order number 5512, arriving Thursday.",
            "The second order is a yoga mat and two resistance bands, order number 5589, still not shipped.",
        ],
        "labels": ["running shoes", "yoga mat"],
        "action": "Please change the delivery address on the {label} order to my office.",
        "action_ack": "The {label} order will now go to your office address.",
        "options": [
            "I found a waterproof jacket for 89 dollars in navy.",
            "There is also a lighter windbreaker for 54 dollars in olive.",
            "Or a fleece-lined parka for 130 dollars in black.",
        ],
        "people": [
            ("she", "My roommate Zoe wants the same shoes; she is a size 7."),
            ("he", "My dad Omar asked for a birthday gift, he likes gardening tools."),
        ],
        "fact": (
            "delivery_address",
            "14 Elm Street, Apt 3",
            "Where should we deliver?",
            "Ship it to my usual address.",
        ),
        "small_talk": [
            ("user", "Do you have any discount codes this week?"),
            ("assistant", "There is 10 percent off for new newsletter sign-ups."),
            ("user", "How do returns work in general?"),
            ("assistant", "Most items can be returned within 30 days, unused, with the label."),
            ("user", "Ugh, my internet keeps dropping."),
            ("assistant", "Sorry to hear that; I will keep my answers short."),
            ("user", "Do you ship to Canada?"),
            ("assistant", "Yes, with a flat 15 dollar fee and customs on arrival."),
            ("user", "What payment methods do you take?"),
            ("assistant", "Cards, PayPal and gift cards."),
            ("user", "Is there a loyalty programme?"),
            ("assistant", "Yes, one point per dollar, 500 points make a 5 dollar voucher."),
        ],
    },
    {
        "name": "real_estate",
        "user": "Neha",
        "assistant": "Arjun",
        "kind": "flat",
        "items": [
            "The first flat I liked is the 2BHK in Baner, 75 lakhs, on the 9th floor with a west view.",
            "The other flat is a 3BHK in Aundh, 1.1 crore, ground floor with a small garden.",
        ],
        "labels": ["Baner", "Aundh"],
        "action": "Please ask the broker for the maintenance charges of the {label} flat.",
        "action_ack": "I have asked the broker for the maintenance charges of the {label} flat.",
        "options": [
            "A visit is possible on Saturday at 11 am.",
            "Sunday at 4 pm also works for the owner.",
            "Or Monday evening at 7 pm.",
        ],
        "people": [
            ("she", "My mother Lata has bad knees, so she cannot climb many stairs."),
            ("he", "My husband Vikram works in Hinjewadi, he wants a short commute."),
        ],
        "fact": ("budget", "90 lakhs", "What is your budget?", "Keep it within my usual budget."),
        "small_talk": [
            ("user", "Are home loan rates going down this year?"),
            ("assistant", "Some banks trimmed them slightly; it varies by lender."),
            ("user", "What is the stamp duty in Maharashtra roughly?"),
            ("assistant", "About six percent in Pune, including metro cess."),
            ("user", "The traffic today was terrible."),
            ("assistant", "It usually is at this hour, sadly."),
            ("user", "What does carpet area mean exactly?"),
            ("assistant", "The usable floor area inside the walls."),
            ("user", "Do schools matter for resale value?"),
            ("assistant", "Yes, good schools nearby usually help resale."),
            ("user", "I need a coffee before we continue."),
            ("assistant", "Sure, I will be here."),
        ],
    },
    {
        "name": "health",
        "user": "Marcus",
        "assistant": "Noor",
        "kind": "prescription",
        "items": [
            "One prescription is for lisinopril 10 mg, once a day, from Dr. Patel.",
            "The other prescription is metformin 500 mg twice a day, from the diabetes clinic.",
        ],
        "labels": ["lisinopril", "metformin"],
        "action": "Please set up a refill reminder for the {label} prescription.",
        "action_ack": "A refill reminder is set for the {label} prescription.",
        "options": [
            "Dr. Chen has an opening on Tuesday at 9:30.",
            "Dr. Alvarez could see you Wednesday at 14:00.",
            "Or Dr. Okafor on Friday at 16:15.",
        ],
        "people": [
            ("she", "My wife Elena is worried; she wants to come to the next appointment."),
            ("he", "My son Jamal drives me, but he only has Fridays off."),
        ],
        "fact": (
            "pharmacy",
            "the Walgreens on 5th Avenue",
            "Which pharmacy?",
            "Send it to my usual pharmacy.",
        ),
        "small_talk": [
            ("user", "Is it normal to feel tired in the afternoon?"),
            ("assistant", "It is common; sleep, meals and hydration all play a part."),
            ("user", "How many steps a day should I aim for?"),
            ("assistant", "Around 7,000 to 8,000 is a good goal for most adults."),
            ("user", "My neighbour's dog has been barking all morning."),
            ("assistant", "That sounds frustrating."),
            ("user", "Is green tea better than coffee?"),
            ("assistant", "Both are fine in moderation; green tea has less caffeine."),
            ("user", "What time does the clinic open?"),
            ("assistant", "At 8 am on weekdays."),
            ("user", "Sorry, the doorbell rang."),
            ("assistant", "No worries."),
        ],
    },
]
