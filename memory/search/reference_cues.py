"""The cues of reference resolution (``references``): the words by which a turn points back,
and the forms of a request. Patterns only (and ``wants_history``, which of them reach the
previous session); what each cue resolves to is in ``references``."""

from __future__ import annotations

import re


def _any(*alternatives: str) -> re.Pattern[str]:
    """One case-blind pattern of several alternatives, each written on its own."""
    return re.compile("|".join(alternatives), re.I)


# "the other card", "the other one", "the other?", "the others", "the remaining one"
OTHER = _any(
    r"(?<!not the )(?<!not that )(?<!any )(?<!\bno )\bother (one|ones|1|[a-z]+)\b|\b(?:the|my|our|your) others?\b(?!\s+[a-z])|\bremaining (one|ones|[a-z]+)\b",
    r"\b(?:the|that|your|ur|its|this) (?:alt|alternative|alternate|counterpart|sibling|leftover|remaining)\b(?! text\b| tag\b| key\b)",
    r"\bthe rest(?: of (?:them|those|the \w+))?(?=\s*(?:$|[?,.!]|r\b|are\b|in\b|any\b))",
    r"\bthe ones? (?:i|we) (?:didn'?t|did not|passed on|skipped|rejected|turned down|declined|left)\b|\bthe ones? (?:you|u) (?:skipped|left out)\b",
    r"\bothr\b|\bthe another\b|\bthe ones? remaining\b|^\W*alt\b(?! text\b| tag\b| key\b)",
    r"\bthe (?:second|2nd) (?:of (?:the|those|these|them) (?:two|2)|(?:one|\w+) (?:u |you )?(?:sent|gave|showed|mentioned|also|as well|too))\b",
)  # fmt: skip
PREVIOUS = re.compile(r"\b(previous|earlier|(?<=\bthe )first(?! time\b| day\b| week\b)|(?<=\bthat )first|(?<=\byour )first|(?<=\bur )first|(?<=\bgo with )first|(?:said|suggested|mentioned|showed|offered|gave|sent|told|recommended|quoted|proposed)(?: me| us)? first|first (?:one|option|choice|slot|date|quote|offer|suggestion|1|place)|original|(?:my|the|our) old (?:one|ones)|originally|initial|initially|at first|to begin with|(?:second|third) (?:one|option|choice|slot|date|time|quote|offer|suggestion|thing)|one before that|(?:one|option|slot|choice|quote|date|time) (?:just |right |immediately )?before\b|before (?:that|those|these|the \w+ (?:one|thing|option))|(?:offered|suggested|mentioned|said) (?:before|at the (?:very )?start)|very start|go back|prev|prior (?:one|build|version|quote|option|offer|config|setup|revision|draft)|b4 (?:this|that)|(?:one|1) b4|1st (?:one|option|1|choice)|bk 2 the|(?:provided|gave|sent|offered|quoted) (?:me )?(?:prior to|before) (?:this|that|the)|(?:go|went|change|put|switch|set) back to what)\b", re.I)  # fmt: skip
# "my previous teacher", "where I lived before", "the address before Harcourt Road", "what I had
# originally", "back how it was before", "my previous one" (not "the previous one": an offer)
FORMER_THING = _any(
    r"\b(?:previous|original|former|(?:my|our|his|her|their|the) old) (?!one|ones|option|options|offer|suggestion|choice|quote|thing|idea|version)[a-z]+|\b(?:where|place|address|house|flat|home|job|school) (?:i|we|he|she|they) (?:lived|was|were|worked|stayed|had|used) before\b|\bthe (?:place|address|house|flat|job|school|number|name) before \w+|\bwhat (?:i|we) (?:had|chose|picked|went with|ordered|asked for) (?:originally|at first|to begin with|first)\b|\bmaiden name\b|\b(?:how|the way|what) (?:it|they|that|things) (?:was|were) (?:before|originally|at first)\b|\b(?:my|our) (?:previous|former) (?:one|ones)\b|\b(?:put|change|set|move|switch|turn|swap) (?:it|them|that|this|everything|things) (?:all )?back\b|\bput back\b|\b(?:where|how) (?:it|they) (?:was|were)(?=\s*(?:$|[,.;!?]|before\b|originally\b|at first\b|with\b|and\b))|\bbefore (?:i|we) (?:changed|upgraded|switched|swapped|moved|updated|replaced|upped|downgraded)\b",
    r"\b(?:revert|roll ?back|ctrl[ -]?z|undo (?:that|this|it|the))\b|\brestore (?:it|that|this)\b|\brestore the (?:old|previous|original|last)\b",
    r"\b(?:change|set|switch|put|turn|make) (?:it|them|that|this|everything|things|the \w+|my \w+|our \w+) back (?:to|how|the way|like)\b",
    r"\b(?:address|number|name|place|one) (?:of|from) before\b|\bin (?:the )?beginning\b(?! of)|\blast known good\b",
)  # fmt: skip
ORDINAL = re.compile(
    r"\b(first|1st|original|originally|initial|initially|start|begin|second|third)\b", re.I
)
# "that code", "this booking"; not "that is", "in that case", "this afternoon", "the one that
# suits them" (a relative clause).
THAT = re.compile(r"(?<!\bone )(?<!\bones )\b(?:that|this|tht|dat) (?!(?:is|isn't|isn|was|are|were|has|have|had|will|would|can|could|should|does|doesn't|doesn|did|didn't|didn|apply|applies|means|sounds|works|look|looks|goes|seems|case|way|morning|afternoon|evening|night|week|weekend|month|year|time|much|many|far|long|late|early|you|we|they|he|she|it|i|the|a|an|to|in|on|at|for|with|of|and|or|but)\b)([a-z]+)\b", re.I)  # fmt: skip
# "Is that the same if…", "does that apply to…", "about that -", "can we change that so it…",
# "that sounds risky": the statement just made (or one a little before).
DEMONSTRATIVE = _any(
    r"\b(?:is|does|was|will|would|can|could|did) (?:that|this)\b|\bthat (?:applies|apply|works|counts|includes|means|sounds|seems|looks)\b|\b(?:that|this)(?=\s*(?:[?!.,;:]|-|\u2013|$)|\s+(?:so|really|then|too|though|tbh|pls|please|now|instead|first|actually|at all|for now)\b)",
    r"\b(?:save|put|add|forward|send|log|copy|paste|pin|note|file|share|print|email|text|post) (?:that|this|tht|dis) (?:to|in|into|on|onto|for|as|over)\b",
    r"\b(?:that|tht|this|thats|that's)(?:'s| is)? (?:wrong|incorrect|not right|way too|too (?:much|high|low|late|early|pricey|expensive|far|long|short|big|small)|good for|fine for|great for|ok for|okay for|perfect for)\b|\bthat much\b(?!\s+[a-z])|\b(?:that|tht) 1\b",
)  # fmt: skip
# "the vintage wooden one", "the one with the glitter": one of the things offered, described.
DESCRIBED = _any(
    r"\bthe (?!other\b|first\b|second\b|third\b|last\b|same\b|previous\b|next\b|new\b|old\b|right\b)(?:[a-z-]+ ){1,2}(?:ones?|1)\b|\bthe ones? (?:with|that|which|where|in|on|for|under|over|near|nearest|closest|by|next|at|from|without|behind|beside|facing|overlooking|you|we|i)\b|\bthe (?!other\b|same\b|way\b|time\b|day\b)[a-z-]+ (?:where|which|that (?:has|had|comes|came|includes|included|does|did))\b|\bthe (?!other\b|same\b|meeting\b|call\b|chat\b|appointment\b|session\b|interview\b|email\b|deal\b)[a-z-]+ with (?:the|loads|lots|more|less|no|free|its|their|own)\b",
    r"\b(?:less|more) (?:expensive|economical|affordable|central|spacious|modern|flexible|reliable|comfortable|convenient) (?:one|of|option)\b|\bof the (?:two|three|four|2|3|4)\b",
    r"\bthe (?:\d{1,2}(?::\d\d)?\s?(?:am|pm)|morning|afternoon|evening|weekend|weekday) (?:slot|one|appointment|option|session|class|flight|train)\b(?!\s+(?:to|from|for|at|on|in)\b)|\b\d{1,2}(?::\d\d)?\s?(?:am|pm) (?:slot|one|option)\b",
)  # fmt: skip
# Weaker, and never in a question ("Why did Caroline choose the agency?", "the biggest
# challenges"): "go with the green jacket", "cheapest pls", "the place by the beach".
DESCRIBED_SOFT = _any(
    r"(?:^\W*|\b(?:i'?ll|i will|i'?d|i|we'?ll|we|let'?s|lets|please|pls|plz|just|then|ok|okay|yeah|yes|so) )(?:go with|go for|take|choose|pick|opt for|prefer|proceed with|rather have) (?:the|that) (?!other\b|same\b|first\b|second\b|last\b|previous\b|one\b|usual\b|flow\b)(?![\w-]+ (?:to|out|for|in|off)\b)[\w-]+",
    r"(?:^\W*|\b(?:the|that|ur|your) )(?:cheapest|cheaper|lowest|highest|biggest|bigger|smallest|smaller|largest|larger|shortest|longest|earliest|closest|closer|nearest|nearer|fastest|quickest|newest|oldest)\b(?=\s*(?:$|[?,.!]|one\b|1\b|option\b|pls\b|plz\b|please\b|of\b|lol\b))",
    r"\bthe (?:place|one|spot|venue|option|room|flat|house|hotel|unit|site|location|property|apartment|vendor|supplier|doctor|plan) (?:by|near|overlooking|facing|opposite|behind|beside|next to|based in|who|that)\b",
    r"\bthe (?!meeting\b|call\b|chat\b|appointment\b|session\b|interview\b|catch-up\b|email\b|deal\b)(?:[a-z-]+ ){1,2}with (?:the|loads|lots|more|less|no|free|its|their|own|24/7|a)\b|^\W*(?:option|the one|one) with\b",
    r"\bthe ones? (?:closer|nearer|further|cheaper|bigger|smaller|newer|older|faster|shorter|longer)\b|\bthe [a-z-]+ that (?:go|goes|is|are|leaves|leave|arrives|runs|gets|offers|serves|takes|was)\b",
)  # fmt: skip
QUESTION = re.compile(
    r"^\W*(?:what|why|how|when|who|whose|where|which|did|does|do|is|was|were|are|has|have)\b", re.I
)
# "that same check", "the same as my feet thing", "the same sort of job as on the last
# interview", "the same set I had for the party", "same reminder for Friday", "the way we did
# the piano": a thing asked
# for before, in this session or the last, named by its own words.
SAME = re.compile(r"\b(?:that|those|these|this) same\b|\b(?:the way|like|how) (?:we|you|u) (?:did|had) (?:it|them|that)? ?for\b|\b(?:the way|what|like) (?:we|you|u) did\b|\bsame (?:sort|kind|type) of \w+|\bsame (?!as\b|like\b|again\b|time\b|day\b|thing\b|here\b|way\b|old\b|to\b)[a-z]+ (?:for|but|on|at|next|this|tomorrow|too|please)\b|\bthe same (?:as|like|for|\w+ (?:as|i|we|you|that))\b|\bsame (?:[a-z]+ ){0,4}(?:as|like)\b|\bsame (?:for|with|on|over)\b|\bthe same (?!time\b|day\b|page\b|boat\b|way\b|place\b)(?:[a-z-]+ ){1,2}(?:over|for|on|with|to|you|we)\b|\b(?:the|that) same way\b|\bidentical(?:ly)?\b(?!\?|$)", re.I)  # fmt: skip
# "ok do what you did for Spotify": a copy, though a wh-word comes first
COPIED = re.compile(r"\b(?:what|the way|how) (?:we|you|u) did\b", re.I)
# "the bit about a million being tax free", "put that in writing": something said, by its words.
BIT = re.compile(r"\b(?:the|that) (?:bit|part) (?:about|where|with|on)\b|\bwhat (?:you|u) said about\b|\b(?:put|get|have|send|write|text|email) (?:me )?(?:that|this) (?:in|down|over|to|as)\b", re.I)  # fmt: skip
# "send another one", "redo that sum", "do the search agian", "can you check the september one
# as well"
AGAIN = _any(
    r"\b(again|agian|agin|once more|one more time|repeat|same thing|another (?:look|go|try|check|search)|re-?(?:do|run|send|book|order|submit|print|post)|(?:send|book|do|make|get|order|print|run|add|post|give|schedule|arrange|pop|fire|set up)(?: me| us| them| him| her)? another)\b|\b(?:do|sort|book|check|look at|have a look at|send|run)\b[^.?!]{0,40}\b(?:as well|too)\b(?!\s+(?:much|many|late|early|long|big|small|expensive|far)\b)",
    r"\bdo (?:it|that|the same|same) (?:for|4)\b|\bdo the same (?:with|on|to)\b|\bnow (?:do it|do|it) (?:for|4)\b|\bsame (?:to|4)\b",
    r"\b(?:likewise|ditto)\b|\bclone (?:that|this|it)\b|\bone more (?:like|of)\b|\banother (?:one|of (?:those|these|them)|like)\b",
    r"^\W*(?:1|one) more\b(?! (?:thing|question|q|day|week|time|hour|minute|month|year)s?\b)|^\W*(?:(?:ok|okay|k|kk|right|cool|great|nice|thanks|ta)\W+)?(?:and|now|same)\W+(?:for|4)\W+(?:\w+\W*){0,4}$",
    r"\bsimilar (?:one|letter|email|message|note|list|thing|form|post|doc|document|version|summary|plan)\b|\bapply (?:the )?same\b|\bdo (?:it )?like (?:this|that) (?:for|4)\b",
)  # fmt: skip
# "forgot my pin again", "the boiler's making that noise again": it happened again, not a request
RECURS = re.compile(r"\b(?:once again|yet again|again and again)\b|\b(?:forgot|forgotten|lost|broke|broken|crashed|(?:is|was|went|goes|are|were) down|failed|stopped|gone|happened|got out|acting up|playing up|leaking|making (?:that|a|the) \w+) (?:\w+ ){0,3}?again\b", re.I)  # fmt: skip
# "send it once again", "please try again": a request before "again", though it also recurs
REQUESTED_AGAIN = re.compile(r"\b(?:send|try|do|run|book|check|order|post|print|email|text|call|show|give|make|sort|look|redo|resend)\b(?:\s+\w+){0,3}?\s+(?:once )?again\b", re.I)  # fmt: skip
# "What was that code again?", "remind me again…", "argh. what days did he say again?": "again"
# asks to be reminded, not to repeat.
REMINDED = re.compile(r"(?:^|[.!?]\s+)\W*(?:\w+\W+){0,3}?(?:what|when|where|who|which|how|why|whose|remind)\b|\b(?:what|who|when|where)(?:'s| was| is| did| were)\b", re.I)  # fmt: skip
LAST_TIME = _any(
    r"\b(last time|as before|exactly (?:like|as)|same (?:as|like) (?:the|our|my) (?!other\b)\w+ (?:one|time|booking|order|visit|trip|stay|party|plan)|same as before|last chat|last session|last call|like before|previously|the other day|same \w+ as (?:ours|before|last|we)|(?:as|like) (?:we|you|i) did\b|last (?:week|month|year|term|semester|season|summer|winter|spring|autumn|holiday|holidays|order|visit|booking|appointment|delivery|service|conversation|stay|trip|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|previous (?:order|visit|booking|appointment|session|chat|call|conversation|stay|trip)|(?:what|as|like) (?:we|i|you) (?:did|had|agreed|discussed|arranged|ordered|booked|got|used) (?:last|before|previously)|(?:discussed|talked about|spoke about|agreed|arranged|sorted|set up) (?:yesterday|on \w+day)|our last (?:chat|call|conversation|session|visit|order))\b",
    r"\blast (?:wk|wks|fri|mon|tue|tues|wed|thu|thurs|sat|sun|cycle|po|hire|event|round|batch|shop|grocery|run|invoice|purchase|sprint|release|project|job|session)\b|\b(?:my|our) last (?:1|one)\b",
    r"\bthe (?:month|week|year|time) before\b(?=\s*(?:$|[,.;!?]))|\bprevious (?:time|event|meeting|sprint|cycle|quarter|round|batch|purchase|job|project|release)\b",
    r"\b(?:we|i|you) used (?:for|last|before|previously)\b|\b(?:did|had|ordered|got|sent|made|booked) (?:\w+ ){0,3}before (?:christmas|xmas|easter|the summer|the holidays)\b|\b(?:like|as) (?:we|you) did (?:together|before)\b",
    r"(?:\blike in (?:my |our |the )?|\blike (?:my|our) |\bfrom (?:my|our) (?=\w+ (?:one|order|appointment|visit|booking|session|delivery|party|event|trip|shop)\b))(?:january|february|march|april|june|july|august|september|october|november|december|christmas|xmas|easter)\b(?! \d)",
    r"\b(?:mirror|replicate|reuse|copy|clone) (?:the |my |our )?(?:\w+ ){0,2}(?:from|per) (?:the |my |our )?(?:last|previous|prior|\w+ (?:one|time|visit|order|event|offsite|trip))\b",
)  # fmt: skip
# "my usual table", "the regular order", "as always", "as per normal", "the one they had the
# last few times", "how I like it", "you know what my building's like"; not "just normal
# classes" (a kind of class)
USUAL = _any(
    r"\b(?:usual|same old|go-to) ([a-z]+(?: [a-z]+)?)|\b(?:my|our|the|his|her|their|your) (?:regular|normal|standard) ([a-z]+)|\b(?:as|like) (?:always|usual|normal)\b|\bas per (?:usual|normal|always)\b|\b(?:how|the way) (?:i|we) (?:like|likes|have|take|prefer) (?:it|them)\b|\byou know (?:what|how) (?:my|our) \w+|\b(?:had|got|used|did) (?:it |them )?(?:the )?(?:last|past) (?:few|couple of|two|three|\d+) times\b|\b(?:the|my|our|what|whatever|where|wherever) (?:(?!is\b|was\b|are\b)[a-z]+ ){0,2}?(?:i|we) (?:always|normally|usually|typically|regularly|generally)\b",
    r"\b(?:my|our) (?:customary|default|standing|fav|fave|favourite|favorite|habitual) \w+\b(?! (?:is|was|are|were)\b)|\b(?:habitually|invariably|customarily)\b",
    r"\b(?:like|as) (?:my|our) (?:habit|custom)\b|\b(?:i|we) (?:go to|sit|use|get|have|order|book|see) (?:\w+ ){0,2}every (?:time|month|week|visit)\b",
)  # fmt: skip
# Weaker: "the card I normally use", "the one I always go to" (after the other cues).
USUALLY = re.compile(r"\b(?:usually|normally|always|regularly|typically|usual|regular|every time|each time|habitually|invariably|customarily|customary|default)\b", re.I)  # fmt: skip
PRONOUN = re.compile(r"\b(she|her|hers|he|him|his)\b", re.I)
THEY = re.compile(r"\b(they|them|their)\b", re.I)
ASKS_FOR = re.compile(r"\b(?:can|could|would|will) (?:you|u)\b|\b(?:can|could|may) (?:we|i) (?!not\b)\w+|\bplease\b|\b(?:i'?d|i would) like\b|\bi (?:want|need) (?:you to|to \w+)\b|\bgo ahead\b|\blet'?s (?!see\b|wait\b|think\b)", re.I)  # fmt: skip
NEEDS = re.compile(r"\bi (?:want|need) (?:a|an|the|my|our|some|\d)\b", re.I)
# "Anything else?" between offers; the words a question (not a request) starts with.
MORE = frozenset(["else", "other", "another", "more", "next", "alternative", "alternatives", "instead"])  # fmt: skip
ASKS = frozenset(["do", "does", "did", "is", "are", "was", "were", "what", "when", "where", "who", "whom", "why", "how", "which", "whose"])  # fmt: skip


def wants_history(query: str) -> bool:
    """Whether resolving ``query`` may read the user's previous session: "same as last time",
    "the same as my Christmas set", "the previous price you gave me", or a request to repeat
    ("the same again") when this session may hold none."""
    return bool(LAST_TIME.search(query) or SAME.search(query) or FORMER_THING.search(query)
                or (AGAIN.search(query) and not REMINDED.search(query) and not recurs(query)))  # fmt: skip


def recurs(query: str) -> bool:
    """Whether "again" only says it happened again ("forgot my pin again", "once again the wifi
    is down"), with no request to repeat before it ("send it once again", "please try again")."""
    return bool(RECURS.search(query)) and not REQUESTED_AGAIN.search(query)
