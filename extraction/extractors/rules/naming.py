"""How people and things are named in a conversation: names (capitalised mid-sentence, the
answer to "your son's name?", or written in lower case after a relation: "my wife sneha"),
what a relation stands for ("wife" → "Sneha"), the user's own first name, and codes that things
go by ("ticket INC-20417", "order #10492")."""

from __future__ import annotations

import re
from dataclasses import replace

from extraction.extractors.base import WindowTurn
from extraction.extractors.rules.acts import RELATIONS
from extraction.extractors.rules.fields import _PER
from extraction.extractors.rules.reader import Context
from extraction.extractors.rules.strings import (
    _COMMON,
    _CONTRACTION,
    _NOT_NAMES,
    GENERIC,
    is_ordinary,
)

NOT_PEOPLE = set(["year", "grade", "class", "term", "standard", "level", "room", "block", "phase", "plan", "line", "account", "card", "policy", "unit", "flat", "floor", "section", "batch", "team", "group", "dr", "mr", "mrs", "ms", "miss", "sir", "madam", "lovely", "great", "thanks", "thank", "hi", "hello", "hey", "yes", "no", "okay", "ok", "sure", "same", "then", "turns", "also", "both", "either"])  # fmt: skip

CODE_WORDS = (
    r"number|no\.?|ref|reference|id|code|pnr|confirmation(?: code| number)?|plate|registration|reg"
)
# a code: letters and digits with one digit at least ("INC-20417", "10492", "K7XQ2L")
CODE = r"((?=[A-Za-z-]*\d)[A-Za-z0-9][A-Za-z0-9-]{2,}[A-Za-z0-9]|[A-Z]{6})\b"


STRONG_CODE = r"\b(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z0-9]{5,8}\b|\b[A-Z]{2,5}-\d{3,}\b"
# a code written in groups ("LR17 KXD", "KA 03 HW 4512", "161-D-23817"): letters and digits both
SPACED_CODE = r"\b(?=[A-Z0-9 -]*\d)(?=[A-Z0-9 -]*[A-Z])[A-Z0-9]{1,5}(?:[ -][A-Z0-9]{1,5}){1,3}\b(?![ -]?[a-z])"


# Things a field kept per body part is about ("pain_level:knee"): a closed class, known whole.
BODY_PARTS = set(["head", "neck", "shoulder", "upper back", "lower back", "back", "chest", "arm", "elbow", "forearm", "wrist", "hand", "thumb", "finger", "hip", "groin", "thigh", "hamstring", "quad", "knee", "shin", "calf", "ankle", "achilles", "heel", "foot", "toe", "jaw", "rib", "ribs", "abdomen", "stomach"])  # fmt: skip


def coded(description: str, examples: list[str]) -> bool:
    """Whether a field's things go by a number or code: its examples have digits, or its
    description says so after "per …" ("one fact per ticket, by its ticket number")."""
    per = _PER.search(description.lower())
    said = description.lower()[per.start() : per.end() + 60] if per else ""
    return any(re.search(r"\d", q) for q in examples) or bool(
        re.search(rf"\b(?:{CODE_WORDS})\b", said)
    )


def first_name(name: str) -> str | None:
    first = name.split()[0] if name.split() else ""
    return first if first[:1].isupper() else None


_NOT_THE_USER = re.compile(
    r"(?:pet|animal|dog|cat|horse|child|children|kid|son|daughter|baby|dependant|dependent|"
    r"freelancer|contractor|tutor|nanny|babysitter|cleaner|employee|hire)s?$"
)


def never_the_user(noun: str) -> bool:
    """A field kept per pet, child, dependant or someone the user hires is never about the user
    ("my dog, Bruno"; "for me 15 hrs a week" of a freelancer's hours)."""
    return bool(_NOT_THE_USER.match(noun))


def user_first_name(ctx: Context) -> str | None:
    """The user's first name: as the session names them, else as they said it ("this is Nadia
    Brooks" earlier in the window or before it)."""
    said = next((ctx.current.get(p.key, "") for p in ctx.fields if p.person_name), "")
    return first_name(ctx.turn.speaker) or first_name(said)


_PRONOUNS = {"she", "he", "her", "him", "his", "hers", "they", "them", "their", "we", "you", "it",
             "its", "everything", "everyone", "everybody", "nothing", "nobody", "something",
             "someone", "somebody", "anything", "anyone", "this", "that", "these", "those"}  # fmt: skip


def person_like(word: str) -> bool:
    return (
        word[:1].isupper()
        and not word.isupper()
        and word.lower() not in NOT_PEOPLE
        and not is_ordinary(word)
        and not re.fullmatch(r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days", word)  # "Thursdays"
        and word.lower() not in _PRONOUNS  # "She has a doctor appointment after."
    )


_DAY = r"(?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day)"  # "Sunday's 16k" is no one's
# "Maya's four", "Leo is 3 now": an age; not "Tom's 3 cars"
_AGE = (
    r"(?:\d+(?![.,]\d)|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    r"(?=\s*(?:[,.;!?]|$|and\b|now\b|years?\b|next\b|in\b|this\b))"
)
_SUBJECT = re.compile(
    rf"(?:^|[.!?]\s+){_DAY}([A-Z][a-z][\w-]+)(?:'s|\s+(?:is|has))\s+"
    rf"(?:(?:a|an|my|our|on|in|just|been|now)\b|{_AGE})"
)


# "in Cornwall", "going back to Chennai": a place, not a person
_PLACE_BEFORE = re.compile(r"\b(?:in|at|near|into|around|(?:back|go|going|goes|moving|moved|fly|flying|"
                           r"drive|drives|driving|commute|travell?ing|trip|holiday|visit) to)\s+$", re.I)  # fmt: skip


def names(turns: list[WindowTurn]) -> set[str]:
    """Words written capitalised mid-sentence somewhere in the window: names, not sentence
    starts ("Same day for her", "Turns out he is …")."""
    out: set[str] = set()
    skip = {w.lower() for t in turns for w in (t.speaker + " " + t.listener).split()}
    asked = False  # the agent asked for a name: the reply's first word may be one ("Kacper.")
    for turn in turns:
        starts = r"^\W*" if asked and turn.role == "user" else r"(?!)"
        for match in re.finditer(
            rf"(?:(?<=[\w,;:\u2013\u2014-] )|{starts})([A-Z][a-z][\w'-]*)", turn.text
        ):
            word = match.group(1).removesuffix("'s")
            place = re.search(_PLACE_BEFORE, turn.text[: match.start(1)])
            if person_like(word) and word.lower() not in skip and not place:  # "in Cornwall"
                out.add(word)
        for match in _SUBJECT.finditer(turn.text):  # "Leo's on the waiting list", "Maya is four"
            if person_like(match.group(1)) and match.group(1).lower() not in skip:
                out.add(match.group(1))
        asked = turn.role == "assistant" and bool(re.search(r"\bnames?\b", turn.text, re.I))
    return out


# "my wife sneha.", "my son arjun and I": a name written in lower case right after a relation
_LOWER_NAME = re.compile(
    rf"\b(?:my|our)\s+(?:{RELATIONS})\s*,?\s+([a-z][a-z'-]{{2,}})"
    r"(?=\s*(?:[.,!?;)]|$|\s+(?:and|is|was|who|will|too|also|as)\b))"
)
_NOT_A_NAME = re.compile(r"(?:ing|ed|ly|s)$|^(?:and|but|who|was|too|also|here|there|now|then|"
                         r"again|well|today|tomorrow|yesterday|tonight|instead|though)$")  # fmt: skip
# "my partner, Kwame Mensah", "my wife Sneha": whom the relation names
RELATION_NAMED = re.compile(
    rf"\b(?:my|our)\s+({RELATIONS})(?:\s*,|\s+is)?\s+((?-i:[A-Z])[a-z][\w'-]*)", re.I
)


def capitalise_names(turns: list[WindowTurn]) -> list[WindowTurn]:
    """Names written in lower case ("my wife sneha") capitalised wherever they are said, so the
    rest reads them as names."""
    learnt = {
        m.group(1)
        for t in turns
        if t.role == "user"
        for m in _LOWER_NAME.finditer(t.text)
        if not _NOT_A_NAME.search(m.group(1)) and not is_ordinary(m.group(1).capitalize())
        and m.group(1) not in NOT_PEOPLE
    }  # fmt: skip
    if not learnt:
        return turns
    pattern = re.compile(rf"\b({'|'.join(sorted(map(re.escape, learnt)))})\b")
    return [replace(t, text=pattern.sub(lambda m: m.group(1).capitalize(), t.text)) for t in turns]


# "Biscuit's a cocker spaniel", "Leo's just turned one": a name's "'s" that is "is" or "has",
# not a possessive ("Biscuit's food").
_CONTRACTED = re.compile(
    rf"\b{_DAY}(?!(?:She|That|This|What|There|Here|Where|Who|How|When|Let)'s)([A-Z][a-z][\w-]+)'s\s+(?=(?:a|an|the|my|our|his|her|their|just|now|on|in|at|off|"
    r"back|still|also|not|fine|ok|okay|doing|going|booked|ready|done|been|got|gone|had|already)"
    rf"\b|{_AGE})"
)
_HAS = re.compile(r"(?:just\s+|already\s+)?(?:been|got|gone|had|\w+ed)\b")


def unpack_names(turns: list[WindowTurn]) -> list[WindowTurn]:
    """ "Biscuit's my chocolate lab" read as "Biscuit is my chocolate lab" (and "Leo's just
    turned one" as "Leo has …"), for fields with one fact per named one."""

    def sub(m: re.Match[str]) -> str:
        if not person_like(m.group(1)):
            return m.group(0)
        verb = "has" if _HAS.match(m.string, m.end()) else "is"
        return f"{m.group(1)} {verb} "

    return [replace(t, text=_CONTRACTED.sub(sub, t.text)) for t in turns]


_SALUTATIONS = (
    r"hi|hello|hey|hiya|hallo|howdy|g'day|gday|namaste|kia ora|salaam|good (?:morning|afternoon|evening)|morning|evening|"
    r"afternoon"
)
_GREETING = re.compile(
    rf"^\W*(?:(?:{_SALUTATIONS}|yes|yeah|yep|ya|so|um|uh|oh|ok|okay|sure)\b[,.!\s]*)+", re.I
)
# A greeting proper: "Sure! I'm lactose intolerant" is no introduction.
_SALUTATION = re.compile(rf"^\W*(?:{_SALUTATIONS})\b", re.I)
_INTRO = re.compile(
    r"^\W*(?:my (?:full |legal )?name(?: (?:in|on|as on) (?:the|my) (?:passport|id|licen[cs]e|visa))? is|"
    r"my name's|name's|"
    r"this is|i'm|im|i am|"
    r"myself|call me|you're speaking (?:to|with)|speaking with|"
    # "It's in my name, Eileen Hargreaves", "under the name Roy Ko"
    r"(?:(?:it's|its|it is|the account's|the account is|all)\s+)?(?:in|under) my name,?(?:\s+it's)?|"
    r"(?:it's\s+|its\s+)?under the name(?: of)?)\s+",
    re.I,
)
_MY_NAME_IS = re.compile(
    r"\bmy (?:full |legal )?name(?: (?:in|on|as on) (?:the|my) (?:passport|id|licen[cs]e|visa|"
    r"card|birth certificate|certificate))? is\s+(?=[A-Z])",
    re.I,
)
# Only what leads a sentence before it: not "the email says my name is …", "they think …"
_ONLY_LEADS = re.compile(
    r"^\W*(?:(?:thanks|thank you|sorry|ah|oh|and|also|actually|btw|by the way|ok|okay|yes|no|so|"
    r"well|hi|hello|hey|for the record|just so you know)\b[\s,!.]*)*$",
    re.I,
)
_WRONG_AFTER = re.compile(
    r"\b(?:but it should be|should be|which is wrong|is wrong|isn't right|not right)\b", re.I
)


def _my_name_is(rest: str) -> re.Match[str] | None:
    said = _MY_NAME_IS.search(rest)
    if (
        said is None
        or not _ONLY_LEADS.match(rest[: said.start()])
        or _WRONG_AFTER.search(rest, said.end())
    ):
        return None
    return said


_STATE_INTRO = re.compile(r"^\W*(?:i'm|im|i am)\s+", re.I)  # as often "I'm tired" as a name
# Lower-case words no name is made of: verbs and adverbs by their endings, and the words a
# state starts with ("been", "after", "so", "not").
_NOT_A_LOWER_NAME = re.compile(
    r"[a-z]+(?:ing|ly|ed)|been|being|after|before|so|not|just|still|also|too|very|quite|pretty|"
    r"really|always|never|all|about|over|back|done|going|gonna|good|great|fine|glad|sure|ready"
)
# "Mira here", "Raj Malhotra speaking"; not "Same here!", "I'm here for you", "Always here to
# help", "Thanks, Melanie. Here's one".
_NAME_HERE = re.compile(
    r"(?<![\w'\u2019])(?P<v>[A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+){0,2})\s+(?i:here|speaking|this side)"
    r"(?![\w'\u2019])(?!\s+(?i:for|to|if|with|whenever|too|as well|and)\b)"
)
_NOT_HERE = {"same", "always", "everyone", "everybody", "someone", "somebody", "nobody", "anyone",
             "right", "still", "nothing", "everything", "glad", "happy", "welcome", "back", "over",
             "up", "out", "down"}  # with GENERIC and _COMMON  # fmt: skip
# For a field that holds an owner's or account holder's name: "The owner is Marco Bellini."
_HOLDER_INTRO = re.compile(
    r"^\W*the (?:owner|account holder|policy ?holder|name on the (?:account|booking|policy)) is\s+",
    re.I,
)
_WEAK_INTRO = re.compile(r"^\W*(?:it's|its|it is|is)\s+", re.I)  # only when greeting or asked
_HERE = re.compile(r"\s*(?:here|speaking|this side|calling)\b", re.I)
_PARTICLES = {
    "de",
    "da",
    "di",
    "du",
    "van",
    "von",
    "der",
    "den",
    "bin",
    "al",
    "el",
    "la",
    "le",
    "dos",
}
_NOT_A_SURNAME = {
    "again",
    "back",
    "too",
    "also",
    "speaking",
    "calling",
    "bye",
    "goodbye",
}  # "Hi, Kylie again"
_AFTER_NAME = re.compile(
    r"\s*(?:$|[.,;!?]|\b(?:here|speaking|this side|from|calling|and|again|only|please)\b)", re.I
)


def _greets(reply: str, first: str) -> bool:
    """Whether the agent's reply calls the user by ``first`` ("Morning Declan.", "Thanks,
    Declan!"): after a greeting or thanks, and before a stop, not any word it says."""
    if not first.isalpha() or first.lower() in GENERIC | _COMMON:
        return False  # "that's awesome, …" — "That's great!"
    lead = rf"(?:{_SALUTATIONS}|thanks|thank you|cheers|sure|ok|okay|right|great)"
    return bool(
        re.search(rf"(?i:\b{lead})[,!.]?\s+{re.escape(first.capitalize())}\b(?=\s*[,.!?]|$)", reply)
    )


def person_name(
    text: str, asked: bool, agent: str = "", opening: bool = False, reply: str = "",
    holder: bool = False,
) -> tuple[str, str] | None:  # fmt: skip
    """(name, cue) when the turn gives the speaker's name: "Hi Jess, Raj Malhotra.", "I'm Priyanka
    Jain", "hey tama its mere walker from …", "Hello, is Maria Delgado.", "hi raj, kylie brennan
    here"; asked for it, a reply of two or three plain words is the name, whatever its case
    ("rohan shetty"); after the agent's opening line, a name the reply starts with ("Tobias
    Wendt, data platform team."), in lower case too when the agent's next turn greets its first
    word ("morning. declan murphy, murphy and sons." — "Morning Declan.")."""
    greeted = saluted = False
    parts = re.split(r"(?<=[.!?])\s+", text.strip())[:3]
    for index, sentence in enumerate(parts):
        rest = _GREETING.sub("", sentence)
        greeted = greeted or rest != sentence  # "Morning! David Okafor."
        saluted = saluted or bool(_SALUTATION.match(sentence))
        if agent and re.match(rf"{re.escape(agent)}\b", rest, re.I):  # not "Ananya" for "A"
            rest = _GREETING.sub("", rest[len(agent) :].lstrip(" ,!."))  # "Hi Jess, …"
            greeted = True
        elif greeted and (vocative := re.match(r"[A-Za-z]+,\s+(?=\S+\s+\S)", rest)):
            rest = rest[vocative.end() :]  # "hi raj, kylie brennan here": whoever raj is
        intro = _INTRO.match(rest) or (_WEAK_INTRO.match(rest) if greeted or asked else None)
        intro = intro or _my_name_is(rest)  # "ah and sorry, my name in the passport is …"
        intro = intro or (_HOLDER_INTRO.match(rest) if holder else None)  # "The owner is …"
        # "I'm" and "it's" introduce a state as often as a name ("I'm staying positive", "it's
        # been tough"): a name in lower case after them needs a greeting or the question
        state = bool(intro) and bool(_STATE_INTRO.match(rest) or _WEAK_INTRO.match(rest))
        rest = rest[intro.end() :] if intro else rest
        words: list[str] = []
        for word in re.findall(r"[A-Za-z][\w'-]*|\S", rest)[:5]:
            if (
                not re.fullmatch(r"[A-Za-z][\w'-]*", word)
                or word.lower() in GENERIC | _COMMON | _NOT_A_SURNAME
                or word in _NOT_NAMES
            ):
                break
            if (
                words
                and words[0][:1].isupper()
                and not word[:1].isupper()
                and word not in _PARTICLES
            ):
                break  # "Gloria Watts again", not "Joost de Vries"
            if re.search(r"\d", word) or re.search(r"(?<!^Mc)(?<!^Mac)[a-z][A-Z]", word):
                words = []  # "ThinkPad T14": a product, not a person
                break
            words.append(word)
        words = words[: 3 + sum(w in _PARTICLES for w in words)]
        tail = rest[len(" ".join(words)) :] if words else rest
        capital = bool(words) and all(w[:1].isupper() for w in words)
        if not words or (not _AFTER_NAME.match(tail) and not (capital and intro)):
            continue  # a lower-case name must end where names end ("mere walker from …")
        here = greeted and _HERE.match(tail)  # "hi raj, kylie brennan here"
        first = opening and index == 0 and len(words) > 1 and tail.lstrip().startswith(",")
        plain = (
            (intro and (not state or saluted))
            or asked
            or here
            or (opening and greeted and len(words) > 1 and _greets(reply, words[0]))
        )
        if (capital and ((len(words) > 1 and greeted) or intro or asked or first)) or (
            plain
            and 1 < len(words) <= 3 + sum(w in _PARTICLES for w in words)
            and not any(_NOT_A_LOWER_NAME.fullmatch(w) for w in words)
        ):
            name = " ".join(
                w if w[:1].isupper() or w in _PARTICLES else w.capitalize() for w in words
            )
            said_again = re.match(  # "Linda. Linda Hayes.": the name said again, in full;
                rf"(?:{re.escape(name)}|(?i:surname|last name|family name)(?:\s+is|:)?)"
                r"((?:\s+[A-Z][\w'-]+){1,2})(?:[.!,]|$)",  # "Venkatesh. Surname Raghavan, R-A-…"
                " ".join(parts[index + 1 : index + 2]),
            )
            # "I'm Hannah, Hannah Okafor": the name said again, in full, after a comma
            again = said_again or re.match(
                rf",\s+{re.escape(name)}((?:\s+[A-Z][\w'-]+){{1,2}})\b", tail
            )
            name += again.group(1) if again and len(words) == 1 else ""
            return name, "introduction" if intro or not asked else "answer"
        if len(rest.split()) > 1:  # "Hi doc. Rahul Menon, …": a word after hello still greets
            greeted = False  # only a sentence right after the greeting introduces
    for match in _NAME_HERE.finditer(text):
        head = match.group("v").split()[0]
        if not (_CONTRACTION.fullmatch(head) or head.lower() in GENERIC | _COMMON | _NOT_HERE
                or head in _NOT_NAMES):  # fmt: skip
            return match.group("v"), "introduction"
    return None
