"""What a sentence does in the dialogue: asks (and how), accepts, refuses, hedges, corrects,
speaks of someone else, or says nothing worth keeping. Pure regular expressions."""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection

from extraction.extractors.rules.fields import content_words, stem

_AUX = (r"do|does|did|is|are|was|were|can|could|would|will|shall|should|may|might|have|has|"
        r"had|am|any|anything|got|need|want")  # fmt: skip
YES_NO = re.compile(
    rf"^\W*(?:and |so |also |great[,.!]? |ok(?:ay)?[,.!]? |alright[,.!]? )?(?:{_AUX})\b", re.I
)
WH = re.compile(r"\b(what|which|when|where|who|whom|whose|why|how)\b", re.I)
_INDIRECT = re.compile(
    r"\W*(?:do|can|could|would)\s+you\s+(?:know|remember|recall|tell me|say|confirm)\s+(?:\w+\s+)?"
    r"(?:what|which|when|where|who|how|whether|if)\b|\W*(?:any|have you (?:got )?any) idea\b",
    re.I,
)
ACCEPT_START = re.compile(  # "hmm ok", "uh, yes"
    r"^\W*(?:(?:hmm+|um+|uh+|er+m?|oh+|ah+|ooh+)\W+(?!right\b))?(yes|yeah|yep|yup|ya|yess|sure|ok|okay|okey|fine|correct|exactly|right|absolutely|"
    r"definitely|of course|please do|please|go ahead|sounds (?:good|great|perfect|ideal|lovely|brilliant|fab|"
    r"grand|excellent|fine|like a plan)|that works|works for me|works|that's right|that is right|that's correct|"
    r"that's fine|that is fine|agreed|deal|haan|ji|"
    r"alright|all right|book it|let's do it|let's do that|do it|confirmed|confirm|go on|go for it|"
    r"why not|i'll take it|do that|k|kk|fair enough|do whatever)\b",
    re.I,
)
# Pleased, not agreeing: accepts a question's offer, but not a value merely stated.
WEAK_ACCEPT = re.compile(
    r"^\W*(perfect|great|lovely|brilliant|wonderful|cool|done|good|excellent|"
    r"awesome|fantastic|nice)\b",
    re.I,
)
ACCEPT_ANY = re.compile(
    r"\b(works( for (me|us))?|is fine|are fine|is good|sounds good|suits (me|us)|is perfect|"
    r"that's fine|fine by (me|us)|ok(?:ay)? (for|with) (me|us)|go with|book (it|that)|"
    r"let's do|happy with|agree|i'll take|we'll take|is ok(?:ay)?|is great|suit (me|us)|go ahead|"
    r"please do|whatever (?:it|he|she|they) needs?|put (?:me|us) down)\b",
    re.I,
)
DENY_START = re.compile(
    r"^\W*(?:(?:hmm+|um+|uh+|er+m?|well|oh|ah)\W+)?(no(?![\s,]+(?:problem|worries|rush|harm|bother|"
    r"trouble|doubt)\b)|nope|nah|not really|not yet|not (?:right |just )?now|not at the moment|"
    r"not for now|not sure|"
    r"never|don't|do not|i don't|we don't|"
    r"i'd rather not|rather not|let's not|not at all|none|neither|no thanks|"
    r"can't(?! wait)|cannot|can not|couldn't|won't be able)\b",
    re.I,
)
DENY_ANY = re.compile(
    r"\b(rather not|doesn't work|does not work|won't work|can't do|cannot do|not okay|not ok|"
    r"too (much|high|expensive|pricey|costly|far|late|early|small|big)|instead|i'd prefer|we'd prefer|prefer not|"
    r"let me think|i'll think|think about it|not keen|no way|pass on|not good for|quite a lot|"
    r"a bit steep|(?:that's|that is) a lot|(?:nothing|anything) (?:sooner|earlier|cheaper|later)|"
    r"can't make|cannot make|not possible|doesn't suit|does not suit|won't suit|"
    r"rather you (?:didn't|did not|don't|do not|not))\b"
    # a day turned down: "Friday's no good", "Wednesday's out", "mornings are tricky"
    r"|\b(?:\w+day|weekend|morning|afternoon|evening|that|it)s?(?:'s| is| are)\s+"
    r"(?:no good|out|tricky|difficult|bad|impossible|a no)\b",
    re.I,
)
# Not yet an answer: "let me think", "I'll think about it", "I'll check with my wife".
DEFERS = re.compile(
    r"\b(?:let me think|i'll think|think about it|let me check|i'll check|need to check|"
    r"i'll let you know|not sure yet|get back to you|lemme check|let me discuss|discuss (?:it )?with|"
    r"talk (?:it over )?(?:to|with) my|ask my|check my (?:schedule|calendar|diary)|call (?:you )?back|"
    # "ok send, will see", "we'll see how it goes" (not "I'll see you Friday", "will see the vet")
    r"(?:i'll|we'll|i will|we will|will) see\b(?!\s+(?:you|u|ya|him|her|them|the|a|an|my|our|your)\b)|"
    r"wait and see|sleep on it|mull (?:it )?over|have a think|(?:i'll|we'll|will) (?:decide|consider)\b|"
    r"(?:i'll|we'll|will) (?:look|read) (?:at |into |over |through )?(?:it|them|that)\b|"
    r"(?:might|may|maybe|could) (?:\w+ ){0,3}(?:it |that |one )?later\b|maybe later)",  # "we might add it later"
    re.I,
)
# Verbs that report a value changed: "increased metformin to 1000 mg", "changed my statin to …"
CHANGE_VERBS = r"increased|decreased|changed|switched|upped|raised|lowered|reduced|put"
HEDGE = re.compile(
    r"\b(maybe|perhaps|probably|possibly|might|may be|not sure|unsure|i think|i guess|"
    r"i suppose|i believe|likely|tentatively|i'll confirm|will confirm|to be confirmed|tbc|"
    r"i'll check|need to check|have to check|not certain|hopefully|roughly|something like|"
    r"or so|ish\b|considering|thinking of|thinking about|leaning towards|if all goes well)\b",
    re.I,
)
CORRECTION = re.compile(
    r"\b(actually|sorry|i mean|i meant|no wait|wait|correction|make that|scratch that|"
    r"change of plans?|instead|rather|on second thought|let me correct|i was wrong|not \w+ but|"
    r"update|updated|(?<!for )now)\b",
    re.I,
)  # "for now" is for the time being, not a correction


def takes_back(between: str) -> bool:
    """Whether the words between two values of one field take the first back ("actually",
    "the code is... no, better", "not X")."""
    return bool(CORRECTION.search(between) or re.search(r"\bno\b|\bnot\b", between, re.I))


SMALL_TALK = re.compile(
    r"^\W*(thanks|thank you|thank u|thx|ty|cheers|bye|goodbye|see you|see ya|take care|"
    r"good (morning|afternoon|evening|night)|hi|hello|hey|noted|great|cool|nice|wow|haha|lol|"
    r"awesome|lovely|perfect|ok|okay|sure|you're the best|much appreciated|appreciate it|"
    r"have a (good|great|nice) (day|evening|one|weekend))\b[^0-9]*$",
    re.I,
)
# Someone other than the user, as the subject or owner of what is said.
RELATIONS = (r"cousin|friend|friends|colleague|colleagues|co-worker|brother|sister|mother|"
             r"father|mom|mum|dad|wife|husband|partner|son|daughter|uncle|aunt|neighbour|"
             r"neighbor|boss|manager|flatmate|roommate|sister-in-law|brother-in-law|in-laws|"
             r"parents|grandmother|grandfather|grandma|grandpa|grandson|granddaughter|grandchild|"
             r"grandkid|grandkids|stepson|stepdaughter|godson|goddaughter|nephew|niece|relative|"
             r"classmate|landlord|teammate|boyfriend|girlfriend|fiance|fiancee|buddy|mate|pal")  # fmt: skip
# A relative, friend or colleague of the speaker's ("my cousin", "a friend of mine").
RELATIVE = re.compile(
    rf"(?i:\b(?:my|our|his|her|their|a|one of my|one of our)\s+(?:\w+\s+)?(?:{RELATIONS})s?(?:'s)?\b)"
    r"|(?i:\b\w+ of (?:mine|ours)\b)"
)
THIRD_PARTY = re.compile(
    rf"(?i:\b(?:my|our|his|her|their|a|one of my|one of our)\s+(?:\w+\s+)?(?:{RELATIONS})s?(?:'s)?\b)"
    r"|(?i:\b\w+ of (?:mine|ours)\b)"
    # "our old walker charged 20", "the previous builder quoted 9k": who served the user before
    r"|(?i:\b(?:my|our|the|their)\s+(?:old|previous|former|last)\s+(?:\w+\s+)?(?:walker|sitter|"
    r"cleaner|agent|agency|provider|supplier|company|firm|broker|dentist|doctor|builder|plumber|"
    r"garage|gym|coach|trainer|tutor|nursery|insurer|contractor|electrician|gardener|vet|clinic|"
    r"accountant|solicitor|mechanic|landlord|place)s?(?:'s)?\b)"
    r"|(?i:\b(?:the|that|this|some|another|a)\s+(?:other\s+)?(?:guy|man|woman|person|lady|driver|fellow|"
    r"chap|customer|client|tenant|buyer|candidate|patient)s?(?:'s)?\b|\bsomeone else\b|\bsomebody else\b|"
    # "Next door's garden bin", "another company quoted me £1,200": not the user's, nor this one's
    r"\bnext[\s-]door(?:'s)?\b|\b(?:another|other|a different)\s+(?:company|firm|provider|supplier|"
    r"garage|shop|bank|agent|agency|dealer|insurer|mover|removal firm)s?\b)"
    # "he", "she": someone else; "they" is as often the doctor or the bank acting for the user
    r"|(?i:\b(?:he|she|his|her|him)\b)(?!\s+(?:said|says|told|suggested|recommended))"
    r"|\b(?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun|To)day's|Tomorrow's|Tonight's)"
    # "It's a …", "That's fine", "Key's in the lockbox": "is", not anyone's
    r"(?!(?:It|That|There|Here|What|Who|Where|How|When|Let|This|Everything|Nothing|Something|"
    r"Anything|One)'s)"
    r"[A-Z][a-z]+'s\s+(?![A-Z])(?!(?:fine|good|ok|okay|great|right|correct|done)\b)\w+"
    # "Divya said you charge 3,500": what someone else said
    r"|\b(?!(?:I|It|That|This|He|She|They|We|You)\b)[A-Z][a-z]+\s+(?:said|says|told me|reckons|mentioned)\b"
    r"(?!\s+(?:that\s+)?(?:we|i|us|our|my)\b)",
)
FIRST_PERSON = re.compile(
    r"\b(i|i'm|i've|i'll|i'd|me|my|mine|we|we're|we've|we'll|we'd|us|our|ours)\b", re.I
)


def is_question(sentence: str) -> bool:
    stripped = sentence.strip()
    return stripped.endswith("?")


# A request for the user's details, said without a question mark.
_REQUEST = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|great|thanks|sure)\W+)?(?:please\s+|kindly\s+)?(?:share|give|tell|send|"
    r"provide|confirm|spell|read out|let me (?:have|know))\s+(?:me\s+|us\s+)?(?:with\s+)?your\b",
    re.I,
)


def question_kind(sentence: str) -> str:
    """'wh' (what, which, when …), 'alt' (this or that?), 'yn' (yes or no), or '' (no question)."""
    if not is_question(sentence):
        return "wh" if _REQUEST.search(sentence) else ""  # "Please share your consumer number."
    last = sentence.split(",")[-1]
    asks_yn = YES_NO.match(last) and not _INDIRECT.match(last)  # "Do you know when …?" asks when
    if (WH.search(last) and not asks_yn) or WH.match(sentence.strip()):
        return "wh"  # not "Do you want us to assemble it when they drop it off?"
    if re.search(r"\bor\b", sentence) and not re.search(r"\bor (not|no)\b", sentence, re.I):
        return "alt"
    return "yn"


# Put off, neither yes nor no: "yeah maybe one day", "not right now", "some other time".
PUT_OFF = re.compile(
    r"\b(?:maybe (?:one day|some ?day|later|next (?:time|year|month)|another time|in the future)|"
    r"not (?:right )?now|not for now|some other time)\b",
    re.I,
)


# "Erm, maybe around 8k?": an answer said unsurely, not a question back.
_TENTATIVE = re.compile(
    r"^\W*(?:(?:erm|um|uh|hmm|er|well|so|oh)\W+)*(?:maybe|perhaps|probably|possibly|around|about|"
    r"somewhere|roughly|approximately|something like|i think|i guess)\b",
    re.I,
)


def tentative(sentence: str, answering: bool) -> bool:
    """Whether a sentence ending in "?" answers the agent's question unsurely ("Maybe 8k?") or
    politely ("Monday week, if that's possible?")."""
    if answering and _POLITE.search(sentence) and not WH.match(sentence.strip()):
        return True
    return (
        answering
        and question_kind(sentence) != "wh"
        and not re.search(r"\b(?:you|your|we|us)\b", sentence, re.I)
        and bool(_TENTATIVE.match(sentence))
    )


_POLITE = re.compile(
    r",?\s*(?:if (?:that's|that is|it's|it is) (?:possible|ok|okay|alright|all right|doable)|"
    r"is that (?:ok|okay|possible|alright|all right)|would that (?:work|be ok(?:ay)?)|"
    r"does that work|(?:is )?that ok)\s*\?\s*$",
    re.I,
)


def accepts(text: str, weak: bool = True) -> bool:
    """Whether the reply agrees; ``weak``: "Perfect." and "Great." count (after a question)."""
    if denies(text) or PUT_OFF.search(text) or DEFERS.search(text):
        return False  # "Okay, I'll talk it over with my husband"
    return bool(
        ACCEPT_START.match(text) or ACCEPT_ANY.search(text) or (weak and WEAK_ACCEPT.match(text))
    )


ACKNOWLEDGE = re.compile(
    r"^\W*(got it|noted|understood|thanks|thank you|thx|ok|okay|good|great|"
    r"perfect|cool|alright|fine|nice|wonderful|yay|brilliant)\b",
    re.I,
)


def acknowledges(text: str) -> bool:
    """ "Ok, thanks" after the agent says a value; "ok send, will see" puts it off."""
    return bool(ACKNOWLEDGE.match(text)) and not (denies(text) or DEFERS.search(text))


def denies(text: str) -> bool:
    return bool(DENY_START.match(text)) or bool(DENY_ANY.search(text))


def hedged(text: str) -> bool:
    return bool(HEDGE.search(text))


def small_talk(text: str) -> bool:
    return bool(SMALL_TALK.match(text.strip()))


_HOUSEHOLD = re.compile(
    r"\b(?:son|daughter|wife|husband|partner|boyfriend|girlfriend|fianc[eé]e?)s?'s$", re.I
)


# "Rolo's a chunky lad, 31", "Bella's about 12 kilos": the thing is, not a thing of someone's
_IS = re.compile(r"[A-Z][a-z]+'s\s+(?:a|an|about|around|roughly|nearly|almost|only|just|maybe|"
                 r"probably|now|still|over|under|\d+)", re.I)  # fmt: skip


def third_party(
    clause: str, words: Collection[str] = (), things: bool = False
) -> re.Match[str] | None:
    """Whether the clause speaks of someone else's things ("my cousin paid 1.1 crore"); a
    capitalised word's "'s" that is a word of the field (``words``, stems) is no one's:
    "Budget's 15k"; for a field of one fact per thing (``things``), the household's things
    are the user's ("my son's rabbit Coco is 3") and "Rolo's a …" is Rolo."""
    for match in THIRD_PARTY.finditer(clause):
        if things and (_HOUSEHOLD.search(match.group(0)) or _IS.fullmatch(match.group(0))):
            continue
        possessive = re.match(r"([A-Z][a-z]+)'s\s", match.group(0))
        if not (possessive and stem(possessive.group(1)) in words):
            return match
    return None


def away(owner: re.Match[str], before: int) -> bool:
    """Whether ``owner`` (a THIRD_PARTY match), said before ``before``, is the possessive of
    someone outside the user's household: "my sister's cat Simba", "a friend's flat" (not "my
    son's", "my wife's")."""
    said = owner.group(0)
    return owner.start() < before and said.lower().endswith("'s") and not _HOUSEHOLD.search(said)


def clauses(sentence: str) -> list[tuple[int, int]]:
    """(start, end) of the sentence's clauses: split at ';', ' but ', ', so ', ', and ' …"""
    cuts = [0]
    for match in re.finditer(
        r";|\s+-\s+|—|,\s+(?=(?:so|but|and|because|since|though|although|which|while|as|plus|"
        r"then|also|or|just|actually|oh|sorry|not|my|our|his|her|their|can|could|would|will|do|does|"
        r"is|are|should|shall|may|what|when|where|which|who|how|why)\b)|\s+(?=(?:but|because|since|"
        r"although|though|whereas)\b)|\s+(?=and\s+(?:(?:I|we)(?:'d|'m|'ve|'ll|'re)|(?:I |we )?(?:want|need)s?)\b)|"
        r"\.\s+",
        sentence,
    ):
        cuts.append(match.end())
    cuts.append(len(sentence))
    return [(a, b) for a, b in itertools.pairwise(cuts) if b > a]


# A sentence with a subject and its verb: "I struggled with …", "It really motivated me",
# "Learning German has been tough" — a reply that says something, not a name for a thing.
STATEMENT = re.compile(
    r"(?:(?:I|I'm|I've|I'd|I'll|it|it's|we|we're|we've|they|they're|he|she|he's|she's)\s+"
    r"(?!\d)(?:\w+ly\s+)?\w+|\w+ing\s+(?:\w+\s+){0,3}(?:has|have|had|is|was)\s+been)\b",
    re.I,
)


def own_after(clause: str, end: int, value: int) -> bool:
    """ "my cousin is buying too, so our budget …", "my boss moved it, please make it …", "my
    wife agrees, we'll go up to …": the user's own words after the other's, before the value."""
    return bool(
        re.search(
            r"\b(so|but|and)\s+(i|we|my|our)\b|"
            r"[,;]\s*(?:(?:now|then|ok|okay|yes|yeah)\W+)?(?:i|we|our)\b(?:'ll|'ve|'d|'re|'m)?(?!\s+(?:he|she))|"
            r"\b(?:please\s+)?(?:make|move|change|put|book|set|push) it\b",
            clause[end:value],
            re.I,
        )
    )


# "leadership moved it to", "can we push it to", "rescheduled for": a date that replaces one
_MOVED = re.compile(r"\b(?:mov(?:e|ed|ing)|chang(?:e|ed|ing)|push(?:ed)?|postpon(?:e|ed)|"  # "knocked it down to £398,500"
                    r"reschedul(?:e|ed)|brought forward|bring (?:it )?forward|shift(?:ed)?|bump(?:ed)?|knock(?:ed)? (?:it |\w+ )?(?:down|off)|(?:dropp|cut|reduc|lower|rais|increas|upp)(?:ed|e)? (?:it |that |this )?(?:down |up )?)"
                    r"\b[^.;!?]{0,30}\b(?:to|for|until)\s+(?:the\s+)?(?:[a-z]+day,?\s+)?(?:the\s+)?$", re.I)  # fmt: skip
# "could you raise it to £5,000 at some point?": asked for or wished, not the new value
_WISH = re.compile(
    r"\b(?:could|would|whether|like to|want to|wish|hope|hoping|can you|may|if|unless)\b", re.I
)


def moved_to(before: str) -> bool:
    """Whether the words before a value say it replaces the field's value ("moved it to",
    "knocked it down to")."""
    return bool(_MOVED.search(before)) and not _WISH.search(before)


# "Kemi will be four in June", "he turns 7 next month": a value the thing will have, not has
_WILL_BE = re.compile(
    r"\b(?:will be|'ll be|will turn|turns|is turning|'s turning|going to be|gonna be)\s+$", re.I
)
_AHEAD = re.compile(
    r"\s+(?:years? old\s+|months? old\s+)?(?:in\s+(?:[A-Z][a-z]+|a\s+\w+|\w+\s+(?:days|weeks|months))|"
    r"next\b|soon\b|on\s+(?:her|his|their)\s+birthday|this\s+(?:year|month|summer|winter|spring|autumn))",
    re.I,
)


def to_come(sentence: str, start: int, end: int) -> bool:
    """Whether the value at ``start:end`` is one the thing will have later, said so."""
    return bool(_WILL_BE.search(sentence[:start]) and _AHEAD.match(sentence, end))


# A field of what the user asks for ("The overdraft the customer asks for"), and a clause that
# asks ("and I'd like it raised to £1,000", "could you take it up to …").
ASKED_FOR = re.compile(
    r"\b(?:asks?|asking|asked|wants?|would like|requests?|requested|prefers?)\b", re.I
)
_ASKING = r"(?:(?:i|we)(?:'d| would) like|(?:i|we) want|could you|can you|please)\b"
_WISH_CLAUSE = re.compile(rf"^\W*(?:and\s+|but\s+|so\s+)?{_ASKING}", re.I)
WISHED = re.compile(rf"\b{_ASKING}", re.I)  # said anywhere: "… and I'd like to drop it to £80"
WISH_BONUS = 0.6


def wish_points(about: str, clause: str) -> float:
    """Points for a field of what the user asks for taking a value from a clause that asks."""
    return WISH_BONUS if _WISH_CLAUSE.search(clause) and ASKED_FOR.search(about) else 0.0


# "Child's name and grade?", "And your son's name?": someone else's name, though no "the" says so
_WHOSE_NAME = re.compile(
    rf"\b({RELATIONS}|child|kid|baby|junior|pupil|pet|dog|cat|student|patient)(?:'s|s')\s+"
    r"(?:full\s+|first\s+)?names?\b",
    re.I,
)


def someone_elses_name(question: str, about: str) -> bool:
    """Whether ``question`` asks someone's name ("Child's name?") that a name field is not
    about (``about``: its key and description as words, as ``Profile.about``)."""
    whose = _WHOSE_NAME.search(question)
    return whose is not None and stem(whose.group(1)) not in content_words(about)
