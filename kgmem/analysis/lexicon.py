"""The judge's word tables: which words carry content, which deny, which name one value of a set.

Data only, each table with a line saying why; :mod:`kgmem.analysis.parsing` reads a statement with
them and :mod:`kgmem.analysis.judge` compares two. Words are compared by stem (:data:`STEMMER`):

* :data:`CONTRACTIONS` and :data:`PHRASES` — rewrites of the lower-cased text into one way of saying a
  thing ("can't" = "can not", "every week" = "weekly", "2 am" = "2", "took up" = "start").
* :data:`IRREGULAR`, :data:`NUMBER_WORDS` — past forms and number words the stemmer leaves apart.
* :data:`STOP`, :data:`POSITIVE`, :data:`NEGATIVE`, :data:`NEGATION`, :data:`BELOW` — fillers, stance
  words, negations and bounds, none of them content.
* :data:`EXCLUSIVE_SETS` — mutually exclusive values ("production" / "staging"), read as
  :data:`EXCLUSIVE_STEMS` and one :data:`CANON` stem per class of synonyms.
* the smaller tables the rules use: many-valued verbs, units, bound words, slot prepositions …
"""

from __future__ import annotations

import re

import snowballstemmer

# Words are compared by their Snowball stem ("skipping" / "skip").
STEMMER = snowballstemmer.stemmer("english")
_TYPED = {"ca": "can not", "wo": "will not", "im": "i", "ive": "i", "non": "continuously"}
CONTRACTIONS = [
    (re.compile(p), r)
    for p, r in (
        (r"\bcan't\b", "can not"),
        (r"\bwon't\b", "will not"),
        (r"n't\b", " not"),
        (r"'(?:m|s|re|ve|d|ll)\b", ""),
        (r"[’]", "'"),
        (r"\bno[\s-]+one\b", "nobody"),  # "no one" is no number one
        # the same contractions typed without the apostrophe ("english isnt my first language", "im", "ive"), and
        # "non-stop", which says "without a stop": continuously, no negation
        (
            r"\b(?:(ca|wo|is|are|was|were|do|does|did|has|have|had|could|would|should|must|need)nt|im|ive|non[\s-]?stop)\b",
            lambda m: _TYPED.get(m.group(1), f"{m.group(1)} not") if m.group(1) else _TYPED[m.group(0)[:3]],
        ),
    )
]
_SHORTHAND = {
    "svc": "service",
    "ppl": "people",
    "fam": "family",
    "thru": "through",
    "mgr": "manager",
    "b/c": "because",
    "pls": "please",
    "plz": "please",
    "pl": "please",
}
# Phrases said two ways: a frequency ("every week" = "weekly"; "every two weeks" = "biweekly") and
# "not … often" = "rarely", which is a frequency, not a negation of the whole statement.
PHRASES = [
    (re.compile(p), r)
    for p, r in (
        # a restatement's preamble says nothing of the fact ("As I said, …", "Just to confirm, …")
        (
            r"\b(?:as|like)\s+(?:i|we)\s+(?:said|mentioned|told\s+you|noted|wrote|explained)"
            r"(?:\s+(?:before|earlier|already|previously))?\b|\bas\s+(?:mentioned|noted|said)(?:\s+(?:before|earlier))?\b"
            r"|\b(?:just\s+)?to\s+(?:confirm|repeat|reiterate|recap|be\s+clear)\b|\bfor\s+the\s+record\b",
            "",
        ),
        (r"\bevery\s+(?:other|two|2)\s+weeks\b|\bfortnightly\b", "biweekly"),
        (r"\ba\s+couple\s+(?:of\s+)?", "a few "),  # one vague amount: "a couple of months" = "a few months"
        # chat shorthand, one spelling each ("billing svc is on 8443", "my team's 5 ppl", "my fam"; "iirc" says nothing)
        (
            r"\b(?:svcs?|ppl|fam|thru|mgr|b/c|pl[sz]|iirc|afaik|tbh|imo|fyi)\b",
            lambda m: _SHORTHAND.get(m.group(0).rstrip("s"), _SHORTHAND.get(m.group(0), "")),
        ),
        (r"\b(?:every|each|per|an?)\s+hour\b", "hourly"),
        (r"\b(?:every|each|per|an?)\s+(day|week|month|year)\b", r"\1ly"),
        (r"\bdayly\b", "daily"),
        (r"\bnot\b((?:\s+(?!not\b)[a-z]+){0,3}?)\s+(?:very\s+|that\s+)?often\b", r"\1 rarely"),
        # a stance against something is its negation ("I've decided against the Pinot")
        (r"\b(decided?|voted?|i|we|am|are|is)\s+against\b", r"\1 not"),
        (r"\b(?:take|takes|took|taken|taking)\s+up\b", "start"),
        (r"\b(?:give|gives|gave|given|giving)\s+up(?:\s+on)?\b", "stop"),  # "I've given up on starting a studio"
        (r"\b([a-z]+)-free\b|\bfree\s+of\s+([a-z]+)\b", lambda m: f"no {m.group(1) or m.group(2)}"),  # "free of work"
        # indifference is having no preference ("any flight time works" = "I don't have a preferred flight time")
        (r"\bany\s+((?:[a-z]+\s+){1,3}?)(?:works|will\s+do|is\s+fine|is\s+ok(?:ay)?)\b", r"no preferred \1"),
        # not able to decide is still deciding ("I can't make up my mind between …" = "trying to decide between …")
        (
            r"\b(?:can|could)\s+not\s+(?:make\s+up\s+(?:my|our|their|his|her)\s+minds?|decide)\b|\bundecided\b",
            "still deciding",
        ),
        # to limit a thing is to have not much of it ("I try to limit snacks" = "I try not to buy many snacks");
        # as a noun ("the rate limit is 100") it is no negation, nor is a reduction by an amount ("to reduce my
        # body fat by 5%" = "to cut my body fat by five percent": a target)
        (
            r"\b(to|i|we|you|they)\s+(?:limit|reduce|minimi[sz]e|cut\s+(?:down|back)\s+on)\b"
            r"(?!(?:\s+[\w'-]+){1,5}?\s+(?:by|to)\s+\d)",
            r"\1 not much",
        ),
        # "no merging until the tests pass" = "the tests pass before merging": an order, not a negation
        (r"\b(?:no|not|never|nothing|nobody)\b((?:\s+(?!not\b|no\b)[a-z']+){1,6}?)\s+(?:until|unless)\b", r"\1 before"),
        # a date said as a bound is that date: "not before March" = "in March at the earliest" (against "in May", another
        # month), "not after Friday" = "by Friday at the latest"
        (r"\bnot\s+(?:before|after)\b|\bat\s+the\s+(?:earliest|latest)\b", " "),
        # a negated comparative of amount is a bound, not a denial: "no more than a few sentences" = "a few sentences max"
        (r"\b(?:no|not)\s+(?:more|longer|later|higher|bigger|larger)\s+than\b", "maximum"),
        (
            r"\bnot\s+((?:[a-z]+\s+){1,2}?)more\s+than\b",
            r"\1maximum",
        ),  # "can't handle more than 200" = "handle 200 max"
        (r"\b(?:no|not)\s+(?:less|fewer|shorter|earlier|lower|smaller)\s+than\b", "minimum"),
        # otherwise "unless" says "except if": "I bike to work unless it rains" = "… except on rainy days"
        (r"\bunless\b", "except"),
        # to use less of a thing is not to use much of it ("I'm trying to eat less sugar" = "to cut back on sugar")
        (
            r"\b(eat|eats|eating|drink|drinks|drinking|use|uses|using|spend|spends|spending|buy|buys|buying)\s+less\b"
            r"(?!\s+than\b)",
            r"\1 not much",
        ),
        # the verb "own" is content ("I don't own it anymore"); "my own" is not
        (r"\b(i|we|you|they|not|who|still|longer|also)\s+own\b", r"\1 owns"),
        # an intention or a decision is said of the act itself: "I'm planning to visit Yosemite" / "I've decided not
        # to go to Yosemite after all" speak of visiting it (still under way is read from the raw text)
        (
            r"\b(?:decided?|deciding|planning|plan|planned|intend|intends|intending|intended|hoping|hope|meaning)"
            r"\s+(not\s+)?to\b",
            r"\1",
        ),
        (r"\bafter\s+all\b", ""),
        (r"\bdecided\s+(not\b)?", r"\1"),  # "I've decided against the Weber" = "not the Weber"
        (r"(?<![\d.,:])\b0\s+(?=[a-z]{3,})", "no "),  # "zero interest" = "no interest" (spelled "0" by then)
        (r"\b(is|are|was|were|be|been|get|gets|got)\s+blocked\b", r"\1 banned"),  # "force-pushing to main is blocked"
        (r"\btim(?:e|es|ed|ing)\s+out\b", "timeout"),  # "times out after 5 seconds" = "a 5-second timeout"
        (r"\bshut(?:s|ting)?\s+down\b", "shutdown"),  # "to be shut down in March" / "the shutdown"
        (r"\bnot\s+(?:so\s+|that\s+)?long\s+ago\b", "recently"),  # a time, not a negation
        # when it happened is not what happened: "I quit coffee last month" / "I drink coffee every morning"
        (r"\b(?:last|this\s+past|past)\s+(?:week|weekend|month|year|quarter|spring|summer|fall|autumn|winter)\b", ""),
        (r"\bwrapped\s+up\b", "finished"),
        # a correction's opener is no content, and "No, …" opening a correction denies the old value, not its own
        (r"^\s*(?:correction|update)\s*:|^\s*no\s*,", ""),
        # one name said three ways: "my cat's name is Pixel" = "my cat is called Pixel" = "a cat named Pixel"
        (r"\b(?:name\s+is|(?:is|are|was)\s+(?:called|named))\b", "named"),
        (r"\bevery\s+(?:second|2nd)\b", "every other"),
        (r"\b(?:one|1)-on-(?:one|1)\b", "1:1"),
        # a unit glued to its number is the same quantity ("4gb" = "4 GB", "70-300mm" = "70-300 mm")
        (r"\b(\d+(?:\.\d+)?)(mm|cm|km|kg|kb|mb|gb|tb|kib|mib|gib|tib|ms|ghz|mhz|px)\b", r"\1 \2"),
        (r"\bnight owl\b", "night person"),
        (r"\bearly (?:bird|riser)\b", "morning person"),
        (r"\bmid-range\b", "midrange"),
        (r"\bhigh-end\b", "upscale"),
        (r"\blow-end\b", "budget"),  # one word each
        (r"\b(?:version\s+|v)(\d+(?:\.\d+)*)\b", r"\1"),  # "v3" = "version 3" = "3"
        (r"\b([a-z]+\d+)s\b", r"\1"),  # "A100s" are "A100 GPUs"
        (r"\b([a-z]+)-(\d+(?:\.\d+)+)\b", r"\1 \2"),  # "Apache-2.0" = "Apache 2.0"  # "jargon-free" = "no jargon"
        (
            r"\b(?:going|gonna|tend|tends|tended)\s+to\b|\bgonna\b",
            "",
        ),  # "I'm going to stop …" = "I'll stop …"  # "took up running" = "started running"
        # a range of clock times says am / pm once: "from 1 to 4 pm" = "1 pm to 4 pm" (not "13:00 to 4 pm")
        (
            r"\b(\d{1,2}(?::[0-5]\d)?)(\s*(?:-|–|to|until|till)\s*\d{1,2}(?::[0-5]\d)?\s*(a\.m\.|am|p\.m\.|pm))(?![a-z])",
            r"\1 \3\2",
        ),
        # one spelling per clock time: "2 am" = "02:00" = "2"; "6 pm" = "18"; "6:30 am" = "6:30"
        (r"\b0?(\d{1,2})(?::00)?\s*(?:a\.m\.|am)(?![a-z])", r"\1"),
        (
            r"\b0?(\d{1,2})(:[0-5]\d)?\s*(?:p\.m\.|pm)(?![a-z])",
            lambda m: f"{int(m.group(1)) % 12 + 12}{m.group(2) or ''}",
        ),
        (r"\b0?(\d{1,2}):00\b", r"\1"),
        (r"\b0(\d:[0-5]\d)\b", r"\1"),  # "03:15" = "3:15"
        (r"\b(\d+)-(?=[a-z]{3,}\b)", r"\1 "),  # "a 5-night stay" says "5 nights"
    )
]
# Past forms the stemmer leaves apart from their verb ("felt" / "feel").
IRREGULAR = dict(
    pair.split(":")
    for pair in """
felt:feel had:have got:get gotten:get took:take taken:take went:go gone:go made:make bought:buy
thought:think ran:run began:begin begun:begin left:leave kept:keep found:find told:tell heard:hear
wrote:write written:write spent:spend sent:send built:build lost:lose paid:pay met:meet sold:sell
taught:teach brought:bring caught:catch gave:give given:give came:come became:become chose:choose
chosen:choose drove:drive driven:drive ate:eat eaten:eat saw:see seen:see knew:know known:know
grew:grow grown:grow flew:fly flown:fly held:hold won:win sat:sit slept:sleep stood:stand
understood:understand did:do done:do ran:run read:read set:set put:put cut:cut
""".split()
)
# Number words: the one table of cardinals, which kgmem.analysis.quantities spells as digits ("thirty-five" =
# "35"), and the words NUMBER_WORDS maps one by one (what is left of them after that spelling).
ONES = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen".split()
    )
}
TENS = {
    w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if w != "_"
}
SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
NUMBER_WORDS = {w: str(i) for w, i in (ONES | TENS | SCALES).items()}
# A month is a number of a date ("February 10th" / "March 3rd" is another date); "may" is a verb too often.
NUMBER_WORDS.update(
    {
        m: f"month{i}"
        for i, m in enumerate(
            "january february march april _ june july august september october november december".split(), 1
        )
        if m != "_"
    }
)
NUMBER_WORDS.update(single="1", once="1", twice="2", half="0.5", dozen="12")
# Words that carry no content for the comparison (articles, pronouns, auxiliaries, hedges).
STOP = frozenset(
    """
a an the this that these those it its i me my mine we us our ours you your he she his her they them their
user users team s is are was were be been being am do does did done have has had having will would shall
should can could may might must to of in on at for with by from into onto about as than then so and or but
if there here what which who whom whose when where how all any some each every both own same such very
really just also actually now currently lately still usually typically normally generally always
around roughly approximately nearly almost probably maybe perhaps please kind sort quite pretty too much many more most lot lots
least only something yet
using use used uses get gets got getting make makes made thing things way ve ll re m d t one
dollars dollar usd euros euro eur pounds pound gbp bucks
""".split()
)
# Stance words: "like", "love", "prefer"… say the same thing for our purpose; "hate" says the opposite.
POSITIVE = frozenset(
    "like likes liked love loves loved enjoy enjoys enjoyed prefer prefers preferred "
    "fond favourite favorite want wants".split()
)
# Compared by stem, so every form counts ("skipping", "cancelled"); ending or dropping a thing denies it
# ("we dropped the plan to …", "the switch is cancelled", "deploys on Tuesday are banned").
NEGATIVE = frozenset(
    STEMMER.stemWord(w)
    for w in (
        "hate dislike avoid miss skip forget forgot fail "  # "never miss" = "always go"
        "drop dropped cancel cancelled canceled abandon scrap scrapped ditch ditched ban banned shelve "
        "refuse reject rejected decline declined discontinue deprecate deprecated remove removed delete deleted lack "
        "retire retired doubt "
        # general English for dislike and for ending a thing (not from any batch: the words a new author may pick)
        "detest loathe despise bore bored boring decommission "
        "decommissioned uninstall uninstalled unsubscribe unsubscribed axe axed dump dumped "
        "wary skeptical sceptical distrust mistrust lapse lapsed broken "
        # words that deny what they are said of: a permission, a presence, support
        "forbidden prohibited disallowed unavailable absent unsupported deactivated"
    ).split()
)
# "under X" says "not over X": a bound stated either way ("must not take longer than 10 minutes").
BELOW = frozenset("under below less fewer shorter within".split())
# Words that negate what they stand in; they count in pairs ("never miss" says "always go").
NEGATION = frozenset(
    "not no never without outside hardly barely scarcely cannot unable except stop stops stopped stopping quit quits quitting anymore nobody "
    "nothing none neither nor".split()
)
# Predicates under which one subject holds many objects: a new object is news, not a conflict.
MULTI_VALUED_VERBS = (
    "like love enjoy use have own play read watch visit know speak collect take keep store host "
    "track maintain manage build write ship teach practise practice hate dislike follow"
).split()
# ... and nouns that say the same after "is": one is a fan of many teams at once
MULTI_VALUED_FORMS = frozenset(
    f for v in MULTI_VALUED_VERBS for f in (v, v + "s", v + "es", v + "d", v + "ed", v + "ing", v[:-1] + "ing")
) | frozenset("fan fans".split())
# "is": its object, not the verb, says whether the predicate holds many values ("is" + "a big Lakers fan").
COPULA = frozenset("is am are was were be been".split())
# Mutually exclusive classes: a word of one class and a word of another class of the same set, in the
# same slot, are two values ("production" / "staging"); words of one class are synonyms ("concise" / "short").
EXCLUSIVE_SETS = (
    "production prod live|staging stage|development dev|qa|sandbox",
    "dark|light",
    "enabled enable on|disabled disable off",
    "open opened|closed close shut",
    "public|private",
    "true|false",
    "concise short brief terse|detailed long verbose lengthy thorough",
    "daily|nightly|weekly|biweekly fortnightly|monthly|yearly annually annual|hourly",
    "british uk|american us",
    "synchronous sync|asynchronous async",
    "morning|afternoon|evening|night",
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday",
    "first|second|third|last",
    "small little tiny|medium|large big huge",
    "manual manually|automatic automatically",
    "allowed permitted|forbidden prohibited",
    "required mandatory|optional",
    "before|after",
    "city|suburbs suburb|countryside",
    "yes|no",
    "often frequently regularly|rarely seldom",
    "real actual|mock mocked fake stub stubbed",
    "black|white|grey gray|red burgundy maroon|blue navy|green|yellow|orange|purple|pink|brown",
    "free|paid",
    "good well great excellent positive best decent|bad badly poor poorly terrible negative disappointing awful worst|mixed",
    "spring|summer|autumn fall|winter",
    "low|high",
    "early|late",
    "fast quick|slow",
    "hot|cold",
    "easy simple|difficult",
    "strict|lenient loose relaxed",
    "remote remotely|onsite|hybrid",
    "indoor indoors|outdoor outdoors",
    "single|married|divorced|engaged",
    "north northern|south southern|east eastern|west western",
    "beginner novice|intermediate|advanced expert",
    "major|minor|patch",
    "ascending|descending",
    "horizontal|vertical",
    "relative|absolute",
    "mutable|immutable",
    "stateless|stateful",
    "eager|lazy",
    "window|aisle",
    "tabs|spaces",
    "stairs|elevator lift",
    "weekday weekdays|weekend weekends",
    "uppercase|lowercase",
    "introvert introverted|extrovert extroverted",
    "include included|exclude excluded",
    "increase increased|decrease decreased",
    "maximum max|minimum min",
    "upper|lower",
    "budget cheap inexpensive affordable|midrange moderate|luxury luxurious upscale premium",
)
EXCLUSIVE = [[c.split() for c in classes.split("|")] for classes in EXCLUSIVE_SETS]
EXCLUSIVE_STEMS = [
    [frozenset(STEMMER.stemWord(IRREGULAR.get(w, w)) for w in c) for c in classes] for classes in EXCLUSIVE
]
# The words of one class are synonyms: each is compared as the class's first word ("excellent cook" =
# "best cook", "concise" = "short"), except words with another everyday sense ("I live in", "on", "us").
AMBIGUOUS = frozenset("live on us well close actual".split())
CANON = {
    stem: STEMMER.stemWord(IRREGULAR.get(c[0], c[0]))
    for classes in EXCLUSIVE
    for c in classes
    for stem in (STEMMER.stemWord(IRREGULAR.get(w, w)) for w in c)
    if stem not in AMBIGUOUS
}
# The subject opens the sentence after at most one of these ("the staging cluster"): kgmem.analysis.parsing.
DETERMINERS = frozenset("a an the this that these those my our your their its his her all every each some".split())
# Progress of one thing: already done ("already decided"); still under way is read by kgmem.analysis.parsing.
DONE = frozenset("already finished completed".split())
PENDING_OR = {"not yet": "pending"}  # "not decided yet" is a thing under way
# a low amount of a thing says much what "not much" says ("a low tolerance for spice" / "can't handle much spice"),
# and so do a comparative of amount ("cut back on soda" / "have less soda and fewer snacks") and a low frequency
# ("I don't eat out much" / "I rarely eat out"; "seldom" is read as "rarely")
SCARCE = frozenset({"low", "less", "fewer", "rare"})
# Small words an acronym's letters leave out ("NASA" / "National Aeronautics and Space Administration").
ACRONYM_SKIP = frozenset("and of for the &".split())
# Units of a quantity: a number replaced beside another unit may be one span said two ways ("30 days" / "a month").
UNITS = frozenset(
    STEMMER.stemWord(w)
    for w in (
        "second minute hour day week month year night mile km kilometer kilometre meter metre foot feet inch cm mm "
        "kg kilogram lb pound gram ounce liter litre gallon cup percent kb mb gb tb kib mib gib tib"
    ).split()
)
# "only Node 20 and newer": words that make "only" a bound, not one value.
BOUND_WORDS = frozenset(STEMMER.stemWord(w) for w in "newer older higher lower above below up later earlier".split())
# Prepositions that, with a participle, belong to a triple's predicate ("is written in").
SLOT_WORDS = frozenset("in on at with by from to for of into via through".split())
