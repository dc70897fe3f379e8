"""Money and numbers in a turn, with where they are and what follows them. Pure functions.

Money is what carries a currency or a money unit ("₹80 lakh", "24 LPA", "€2,500", "625k",
"1.2 crore"); a bare number becomes money only where the dialogue says it is (the answer to a
money question, a money word beside it), and then takes the currency and unit of the money
said last ("The budget tops out at 30 lakhs. Would 30 work?" → ₹30 lakh).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from extraction.text import NUMBER_WORDS
from extraction.values import names_a_code

UNITS = {"k": 1e3, "thousand": 1e3, "grand": 1e3, "lakh": 1e5, "lakhs": 1e5, "lac": 1e5,
         "lacs": 1e5, "l": 1e5, "lpa": 1e5, "crore": 1e7, "crores": 1e7, "cr": 1e7,
         "million": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9}  # fmt: skip
INDIAN = {"lakh", "lakhs", "lac", "lacs", "l", "lpa", "crore", "crores", "cr"}
SIGNS = {"₹": "INR", "rs": "INR", "rs.": "INR", "inr": "INR", "rupees": "INR", "rupee": "INR",
         "$": "USD", "usd": "USD", "dollars": "USD", "dollar": "USD", "bucks": "USD",
         "€": "EUR", "eur": "EUR", "euros": "EUR", "euro": "EUR", "£": "GBP", "gbp": "GBP",
         "pounds": "GBP", "quid": "GBP", "aed": "AED", "dirhams": "AED", "sgd": "SGD",
         "cad": "CAD", "aud": "AUD", "chf": "CHF", "francs": "CHF", "yen": "JPY", "¥": "JPY",
         "nzd": "NZD", "hkd": "HKD", "s$": "SGD", "sg$": "SGD", "a$": "AUD", "au$": "AUD",
         "nz$": "NZD", "c$": "CAD", "ca$": "CAD", "hk$": "HKD", "us$": "USD", "r$": "BRL",
         "mx$": "MXN"}  # fmt: skip
_SIGN = (
    r"\b(?:s|sg|a|au|nz|c|ca|hk|us|r|mx)\$|"  # "S$15,000", "NZ$180": which dollar, said
    r"₹|\$|€|£|¥|\brs\.?|\binr\b|\busd\b|\beur\b|\bgbp\b|\baed\b|\bsgd\b|\bcad\b|\baud\b|\bchf\b|"
    r"\bnzd\b|\bhkd\b"
)
_POST = r"rupees?|dollars?|bucks|euros?|pounds|quid|inr|usd|eur|gbp|aed|dirhams|sgd|cad|aud|chf|francs|yen|nzd|hkd"
_UNIT = r"thousand|grand|lakhs?|lacs?|lpa|crores?|cr|million|mn|billion|bn|k|l|m"
MONEY = re.compile(
    rf"(?P<pre>{_SIGN})?\s?(?<![\w.,])(?P<num>\d{{1,3}}(?:,\d{{2,3}})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"\s?(?P<unit>{_UNIT})?(?![a-z])\s?(?P<post>{_POST})?(?![a-z])",
    re.IGNORECASE,
)
_WORDS = "|".join(sorted((w for w in NUMBER_WORDS if " " not in w and len(w) > 1), key=len,
                         reverse=True))  # fmt: skip
_UNITS_ON = (
    r"(?:mg|mcg|g|kg|km|gb|mb|tb|ml|l|cm|mm|m|ft|kw|kwh|hrs|hr|h|yrs|yr|mins|min|pc|pcs|x|bhk|br)"
)
# "the fourth floor", "Third — no, sorry, fourth": an ordinal word, a number where it says a place
_ORDINAL_WORDS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                  "ninth", "tenth", "eleventh", "twelfth"]  # fmt: skip
_ORDINALS = "|".join(_ORDINAL_WORDS)
_ALONE = re.compile(r"\s*(?:[,.;!?\u2013\u2014]|$)")
_LEAD = re.compile(
    r"(?:^|[,.;!?\u2013\u2014]\s*)(?:(?:no|sorry|oh|actually|um|erm|er|the|it's)\W+)*$", re.I
)
_PLACE = re.compile(r"\s+(?:grade|class|standard|year|floor|form|place)\b")


def _on_its_own(text: str, match: re.Match[str]) -> bool:
    """An ordinal said as the whole answer: "Fourth.", "Third — no, sorry, fourth" (not "goes first.")."""
    return bool(_ALONE.match(text, match.end()) and _LEAD.search(text[: match.start()]))


NUMBER = re.compile(
    rf"(?<![\w.,/:-])(?P<num>\d{{1,3}}(?:,\d{{2,3}})+(?:\.\d+)?|\d+(?:\.\d+)?|{_WORDS}|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|dozen|half|{_ORDINALS})"
    # a unit may be written on ("50mg", "12GB"), an ordinal ("7th grade") too
    rf"(?:(?={_UNITS_ON}\b)|(?P<ord>st|nd|rd|th)\b|(?![\w/:]|\.\d|-\d))",
    re.IGNORECASE,
)
_MORE_WORDS = {"eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
               "forty": 40, "fifty": 50, "hundred": 100, "dozen": 12, "half": 0.5}  # fmt: skip
MONEY_WORDS = re.compile(
    r"\b(budget|salary|ctc|pay|paid|pays|paying|price|cost|costs|rent|fee|fees|fare|fares|charge|charged|"
    r"stretch|"
    r"income|earn|earns|earning|make|making|afford|spend|spent|amount|limit|premium|cover|"
    r"package|offer|bill|deposit|emi|per month|a month|monthly|per annum|a year|yearly|annual|"
    r"lpa|estimate|quote|quoted|worth|owe|refund|balance|loan|debit|debited|transaction|"
    r"dispute|disputed|expect|expecting|expected|need|ctc|comp|base|raise|max|tops|maximum|at most|"
    r"chip in|chipping in|chipped in)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Amount:
    amount: float
    currency: str | None
    start: int
    end: int
    unit: float  # the multiplier written (1e5 for lakh), 1 when none
    explicit: bool  # a currency or money unit was written

    def value(self) -> dict[str, object]:
        amount: float | int = int(self.amount) if float(self.amount).is_integer() else self.amount
        return {"amount": amount, "currency": self.currency}


def _parse(raw: str) -> float | None:
    if raw.count(".") > 1:
        return None
    return float(raw.replace(",", ""))


# The words of MONEY_WORDS that say only a period ("a month"): money where an amount comes before.
RATE_WORDS = re.compile(r"per month|a month|monthly|per annum|a year|yearly|annual", re.I)


def speaks_of_money(text: str) -> bool:
    """Whether ``text`` has a word of money; a period ("a month") only right after a number
    ("£500 a month"), not "metformin 500, a month each" (how much of a medicine)."""
    return any(not RATE_WORDS.fullmatch(m.group(0)) or re.search(r"\d\s*$", text[: m.start()])
               for m in MONEY_WORDS.finditer(text))  # fmt: skip


def money_in(text: str, currency: str | None = None, bare: bool = False,
             context: Amount | None = None) -> list[Amount]:  # fmt: skip
    """Amounts of money in ``text``. ``currency``: what an amount without one is in. ``bare``:
    also plain numbers (the dialogue says they are money); ``context``: the money said last,
    whose unit a small bare number takes ("30" after "30 lakhs")."""
    found: list[Amount] = []
    for match in MONEY.finditer(text):
        pre, unit, post = match.group("pre"), match.group("unit"), match.group("post")
        number = _parse(match.group("num"))
        if number is None:
            continue
        unit_l = (unit or "").lower()
        # "3 m" or "5 k" alone are too often metres or kilometres; "2 l" litres.
        # "3 m", "2 l" and "5 k" alone are as often metres, litres and kilometres: money only
        # where the dialogue speaks of money; "625k" written together is money.
        attached = unit is not None and match.end("num") == match.start("unit")
        money_here = bare or bool(MONEY_WORDS.search(text))
        if unit_l in ("m", "l") and not (pre or post) and not money_here:
            unit_l, unit = "", None
        if unit_l == "k" and not (pre or post) and not (money_here or attached):
            unit_l, unit = "", None
        explicit = bool(pre or unit or post)
        multiplier = UNITS.get(unit_l, 1.0)
        if not explicit:
            if not bare or _is_time_or_id(text, match.start("num"), match.end("num")):
                continue
            if context is not None and context.unit > 1 and number < 1000:
                multiplier = context.unit  # "Would 30 work?" after "30 lakhs"
            elif number < 100 and not (context is not None and context.amount < 1000) \
                    and not _A_RATE.match(text, match.end("num")):  # fmt: skip
                continue  # "2", "7": a count, not money (unless the money spoken of is small,
                # or it is a rate: "Sixty-five an hour" to "the most you'd pay per hour?")
        code = SIGNS.get((pre or "").lower().strip()) or SIGNS.get((post or "").lower())
        if code is None and unit_l in INDIAN:
            code = "INR"
        if code is None:
            code = context.currency if context is not None and context.currency else currency
        end = match.end() if (unit or post) else match.end("num")
        start = match.start("pre") if pre else match.start("num")
        found.append(Amount(round(number * multiplier, 2), code, start, end, multiplier, explicit))
    return found


_A_RATE = re.compile(
    r"\s*(?:an?|per|/)\s*(?:hour|hr|night|session|head|person|lesson|class|visit)\b",  # not "6 a week"
    re.I,
)
_MEASURE_AFTER = re.compile(
    r"\s*(?:(?:kgs?|kilos?|kilograms?|grams?|lbs?|km|kms|miles?|metres?|meters?|cm|mm|ft|feet|days?|"
    r"weeks?|months?|years?|yrs?|hours?|hrs?|mins?|minutes?|nights?|people|persons?|guests?|pax|"
    r"adults?|kids?|children|percent|times|pcs|pieces?|items?|bags?|boxes|rooms?|bhk|floors?|"
    r"sessions?|tablets?|mg|ml)\b|%)"  # "a 7% service fee" is no money
)


def _is_time_or_id(text: str, start: int, end: int) -> bool:
    """A clock time ("after 4", "4 pm"), a year, or part of a code ("PB-4471", "#4471")."""
    before, after = text[max(0, start - 8) : start].lower(), text[end : end + 14].lower()
    if _MEASURE_AFTER.match(after):
        return True  # "4 kilos", "3 nights", "20 people": a measure, not money
    if re.fullmatch(r"(19|20)\d\d", text[start:end]) and not re.search(r"[$₹€£]\s*$", before):
        return True  # "March 2026", "since 2019"
    if re.match(r"\s*(am|pm|o'clock|:\d|h\b|hrs\b)", after) or re.search(
        r"(after|before|at|by|around)\s$", before
    ):
        return True
    if re.fullmatch(r"\d{4,}", text[start:end]) and names_a_code(text[:start], text[start:end]):
        return True  # "claim 90114", "savings ending 4821": digits that name (not "claim 500")
    return bool(re.search(r"[-#/]$|no\.?\s$|number\s$", before) or re.match(r"[-/]\w", after))


@dataclass(frozen=True)
class Number:
    value: float
    start: int
    end: int
    after: str  # the two words after it ("days notice", "of us")


def numbers_in(text: str) -> list[Number]:
    out = []
    for match in NUMBER.finditer(text):
        word = match.group("num").lower()
        if word in NUMBER_WORDS:
            value = float(NUMBER_WORDS[word])
            if word in ("a", "an", "few") or (  # "after a few months": how many is not said
                word == "one" and _pronoun_one(text, match.start(), match.end())
            ):
                continue
        elif word in _MORE_WORDS:
            value = float(_MORE_WORDS[word])
            if word == "half" and not _HALF_OF.match(text, match.end()):
                continue  # "half fixed half variable": no number
        elif word in _ORDINAL_WORDS:  # a place said by its word: "fourth floor", "Fourth."
            value = float(_ORDINAL_WORDS.index(word) + 1)
            alone = word not in ("first", "second") and _on_its_own(text, match)  # not "First, …"
            if not (_PLACE.match(text, match.end()) or alone):
                continue
        else:
            parsed = _parse(word)
            if parsed is None:
                continue
            value = parsed
        after = " ".join(re.findall(r"[a-z%]+", text[match.end() : match.end() + 24].lower())[:2])
        if word == "half" and re.search(r"\band a\s*$", text[: match.start()].lower()):
            continue  # "two and a half": the half belongs to the two
        if re.match(r"\s+and a half\b", text[match.end() :], re.I):
            value += 0.5
            after = " ".join(
                re.findall(r"[a-z%]+", text[match.end() + 11 : match.end() + 35].lower())[:2]
            )
        if match.group("ord"):
            after = after.removeprefix(match.group("ord").lower()).strip()
            place = re.match(r"(grade|class|standard|year|floor|form|place)\b", after)
            said = not word[0].isdigit() and _on_its_own(text, match)  # "Fourth."
            if not (place or said):
                continue  # "the 14th" is a date, not a number
        out.append(Number(value, match.start(), match.end(), after))
    return out


def _pronoun_one(text: str, start: int, end: int) -> bool:
    """ "a big one", "the other one", "that one": a pronoun, not the number 1."""
    before = text[max(0, start - 12) : start].lower()
    after = text[end : end + 12].lower()
    if re.search(r"\b(?:just|only) the\s+$", before):
        return False  # "just the one": one
    if re.search(r"\b(?:in|at)\s+$", before) and re.match(r"\s*(?:go|piece|sitting|hit)\b", after):
        return True  # "in one go", "at one sitting": all at once, no count
    if re.match(r"\s*(?:moment|sec|second|minute|mo)\b", after) and not re.search(r"\d", after):
        return True  # "one moment", "one sec": wait, no count
    if re.search(
        r"\b(a|the|this|that|big|small|other|same|another|which|each|any|every|no|only|"
        r"last|first|new|old|good|right|wrong|little|nice|cheaper|bigger|better)\s+$",
        before,
    ):
        return True
    return bool(
        re.match(
            r"\s*(?:[.,!?;]|$|of (?:them|those|these|us|my|our|the)\b|(?:is|was|thing)\b)", after
        )
    )


# "That's $118 for the C5", "£238 all in", "Together it will be around Rs 3,200", "Our fee for
# the extension is $650": a price put to the user, theirs once they agree to it.
_PRICE = re.compile(
    r"\b(?:that's|that is|that'll be|it's|it is|it'?ll be|it will be|it would be|would be|will be|"
    r"comes? to|coming to|all in|all up|in total|total|altogether|our fee|the fee|the price|"
    r"the cost|costs?|we charge|the charge|estimate|quote)\b|,\s*so\b|^\W*so\b",
    re.I,
)


def quotes(sentence: str, currency: str | None) -> bool:
    """Whether the agent's sentence puts a price to the user."""
    if _RANGE.search(sentence) or _IF.search(sentence):  # "₹7,000 to ₹10,000", "If you cancel, …"
        return False
    amounts = [a for a in money_in(sentence, currency) if a.explicit and a.currency
               and _CURRENCY_SAID.search(sentence[max(0, a.start - 4) : a.end + 10])]  # fmt: skip
    if any(_READ_BACK_END.fullmatch(sentence[a.end :]) and re.search(r",\s*$", sentence[: a.start])
           and not _PART_PAID.search(sentence[: a.start].rstrip(", ").split(",")[-1]) for a in amounts):  # fmt: skip
        return True  # "Thursday at 8am, front pads and rotors, $412.": a booking read back
    return any(_PRICED_AT.search(sentence, 0, a.start) for a in amounts) or any(
        (m.end() <= a.start and a.start - m.end() <= 40)
        or (a.end <= m.start() and m.start() - a.end <= 4)
        for m in _PRICE.finditer(sentence)
        for a in amounts
    )  # the price word beside the amount: "that's $118", "£238 all in"


# "half a day", "half an hour", "half price", "and a half": a half that counts
_HALF_OF = re.compile(
    r"\s+(?:a|an|hour|day|kilo|kg|litre|liter|mile|km|pint|dozen|price|percent|the)\b|\s*(?:[,.;!?]|$)",
    re.I,
)
# A currency written with the amount ("£238", "Rs 3,200", "145 francs"), not only "16k"
_CURRENCY_SAID = re.compile(
    r"[£$€₹¥]|\b(?:rs|inr|usd|gbp|eur|aud|cad|sgd|chf|nzd|dollars?|pounds?|quid|euros?|rupees?|"
    r"francs?|bucks)\b",
    re.I,
)
# "Premium's £54.99 a month", "we're looking at £145", "I can do it for £139"
_PRICED_AT = re.compile(
    r"(?:'s|\bis|\bare|'d be|\bbe|looking at|do (?:it|that|them) for|yours for|"
    r"(?:a|per|an?) (?:night|month|week|session|hour|year|table|head|person)(?: is)?)"
    r"\s+(?:about\s+|around\s+|just\s+|only\s+)?$",
    re.I,
)


_PART_PAID = re.compile(
    r"\b(?:deposit|paid|fee|refund|charge|advance|balance)\b", re.I
)  # not the total
_READ_BACK_END = re.compile(r"\s*(?:in total|total|all in)?\s*[.!]?\s*", re.I)
_IF = re.compile(r"\b(?:if|unless|otherwise|most customers|most people|usually)\b", re.I)
_RANGE = re.compile(
    r"\d\s*(?:k\b)?\s*(?:to|-|\u2013|or)\s*[₹$£€]?\s*\d|\bbetween\b|\bfrom\s+[₹$£€]?\d", re.I
)
# A field that holds a price put to the user (not what they will spend: a budget, a ceiling)
_PRICED = re.compile(r"estimate|quote|fee|price|cost|charge|total|bill|invoice|payment|premium|co-?pay|"
                     r"deposit|amount due")  # fmt: skip
_SPEND = re.compile(r"budget|ceiling|most|max|limit|afford|spend|salary|income|earn")


def priced(key: str, description: str) -> bool:
    """Whether a money field holds a price the agent quotes (an estimate, a fee, a total)."""
    text = f"{key.replace('_', ' ')} {description}".lower()
    return bool(_PRICED.search(text)) and not spends(key)


def spends(key: str) -> bool:
    """Whether a money field holds what the user can or will spend (a budget, a ceiling)."""
    return bool(_SPEND.search(key.lower()))
