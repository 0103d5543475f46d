"""Small books the tests write: a one-chapter novel, and a shelf of three fables."""

from __future__ import annotations

from pathlib import Path

#: A one-chapter Markdown novel.
NOVEL = "# Novel\n\n## One\n\nThe lamp was lit at six. Nobody saw it.\n"
#: Three of Aesop's fables (public domain, after Townsend's 1867 translation), one book each, in
#: two formats; long enough (about 20 segments each) for kills to land mid-book.
FABLES = {
    "the-fox.md": (
        "# The Fox and the Grapes\n\n## The Vine\n\n"
        "A Fox one day spied a beautiful bunch of ripe grapes hanging from a vine trained along the "
        "branches of a tree. The grapes seemed ready to burst with juice. His mouth watered as he "
        "gazed longingly at them.\n\nThe bunch hung from a high branch. The Fox had to jump for it. "
        "The first time he jumped he missed it by a long way. So he walked off a short distance and "
        "took a running leap at it, only to fall short once more.\n\n## The Moral\n\n"
        "Again and again he tried, but in vain. Now he sat down and looked at the grapes in disgust. "
        "What a fool I am, he said. Here I am wearing myself out to get a bunch of sour grapes that "
        "are not worth gaping for. And off he walked very, very scornfully.\n\n"
        "There are many who pretend to despise and belittle that which is beyond their reach.\n"
    ),
    "the-hare.txt": (
        "The Hare and the Tortoise\n\n\nCHAPTER I.\n\n"
        "A Hare was making fun of the Tortoise one day for being so slow. Do you ever get anywhere? "
        "he asked with a mocking laugh. Yes, replied the Tortoise, and I get there sooner than you "
        "think. I will run you a race and prove it.\n\nThe Hare was much amused at the idea of "
        "running a race with the Tortoise. But for the fun of the thing he agreed. So the Fox, who "
        "had consented to act as judge, marked the distance and started the runners off.\n\n\n"
        "CHAPTER II.\n\nThe Hare was soon far out of sight. To make the Tortoise feel very deeply how "
        "ridiculous it was for him to try a race with a Hare, he lay down beside the course to take "
        "a nap until the Tortoise should catch up.\n\nThe Tortoise meanwhile kept going slowly but "
        "steadily. After a time he passed the place where the Hare was sleeping. The Hare slept on "
        "very peacefully. When at last he did wake up, the Tortoise was near the goal.\n\n"
        "The Hare now ran his swiftest, but he could not overtake the Tortoise in time. The race is "
        "not always to the swift.\n"
    ),
    "the-crow.md": (
        "# The Crow and the Pitcher\n\n## Thirst\n\n"
        "In a spell of dry weather, when the Birds could find very little to drink, a thirsty Crow "
        "found a pitcher with a little water in it. But the pitcher was high and had a narrow neck. "
        "No matter how he tried, the Crow could not reach the water.\n\nThe poor thing felt as if he "
        "must die of thirst. Then an idea came to him. Picking up some small pebbles, he dropped "
        "them into the pitcher one by one.\n\n## The Pebbles\n\nWith each pebble the water rose a "
        "little higher. At last it was near enough so he could drink. In a pinch a good use of our "
        "wits may help us out.\n\nLittle by little does the trick. The Crow drank his fill and flew "
        "away over the dry fields, and the pitcher stood empty in the sun.\n"
    ),
}
BOOK_IDS = ("the-crow", "the-fox", "the-hare")
#: Refused alone: the others must finish.
BAD_BOOK = ("the-ant.txt", "")


def write_shelf(folder: Path, *, bad: bool = False) -> Path:
    folder.mkdir(parents=True)
    for name, text in [*FABLES.items(), *([BAD_BOOK] if bad else [])]:
        (folder / name).write_text(text)
    return folder
