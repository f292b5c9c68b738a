"""The item view: one memory rendered for reading, with its links both ways.

Content is untrusted, so it is built as ``Text`` from ``safe_text`` and only
then styled by span: wiki-links are found as candidates and confirmed by
``wikimem.find_links`` (the library owns the link grammar; this module
only needs positions). A resolved link is underlined and clickable (the
click action carries an index into ``self.links``, never the untrusted name),
a dangling one is marked. Backlinks come from the ``Catalogue``'s reverse
map, built off the UI thread once per store change: the items linking here,
then the diary entries linking here, each of those saying that the diary is
append-only (a rename, move or delete leaves its link dangling).

Curation state is shown where the text is read: the derived badge
(``badges.badge_for``: written from recall answers, not independent
evidence) on an item's title and on each diary entry, and an item's review
marks (``<!-- wikimem-review: … -->``, e.g. left by a retraction) as a
banner above its content, with the keys that act on them.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.selection import Selection
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from wikimem import DiaryItem, FileMeta, RecallItem, WikiLink, find_links, review_reasons
from wikimem_tui.core.catalogue import Catalogue, DiaryKey
from wikimem_tui.common.messages import OpenDiaryDay, OpenItem
from wikimem_tui.common.safe import safe_line, safe_text
from wikimem_tui.common.badges import badge_for
from wikimem_tui.item.link_wrap import LINK_RE, KeptWhole
from wikimem_tui.core.words import count

__all__ = ["DIARY_LINK_NOTE", "EMPTY_MEMORY", "PICK_SOMETHING", "ItemView", "address", "diary_label", "render_content",
           "provenance"]

#: Said next to every diary entry listed as linking to an item (the view, delete, rename and move).
DIARY_LINK_NOTE = "append-only: never rewritten"
#: The placeholder before anything is opened.
PICK_SOMETHING = "Select an item in the tree (t), or go to one (g)."
#: The placeholder of a memory with nothing in it yet: where a new user starts.
EMPTY_MEMORY = "This memory is empty: n creates its first wiki item, a appends a diary entry."


def render_content(
    content: str, catalogue: Catalogue | None, links: list[WikiLink] | None = None, here: str | None = None
) -> Text:
    """``content`` as literal Text with wiki-links (either spelling) highlighted.

    When ``links`` is given, each item link found is appended to it and its
    span gets a ``@click`` meta pointing at its index there. ``here`` is
    the RecallFile the content belongs to (for ``[[#name]]``). A link to a
    whole RecallFile (``[[file]]``) is marked, not followed.
    """
    text = safe_text(content)
    for match in LINK_RE.finditer(content):
        parsed = find_links(match.group(0), here=here)
        if not parsed:
            continue
        ref = parsed[0]
        if ref.name is None:
            known = catalogue is None or catalogue.count(ref.file) > 0
            style = Style(color="cyan", underline=True) if known else Style(color="red", strike=True)
            if text.plain[match.start() : match.end()] == match.group(0):
                text.stylize(style, match.start(), match.end())
            continue
        link = WikiLink(ref.file, ref.name)
        resolved = catalogue is None or catalogue.has(link.file, link.name)
        style = Style(color="cyan", underline=True) if resolved else Style(color="red", strike=True)
        if links is not None:
            links.append(link)
            if resolved:
                style += Style.from_meta({"@click": f"follow_link({len(links) - 1})"})
        # safe_text keeps length except where controls widened; only style when aligned.
        if text.plain[match.start() : match.end()] == match.group(0):
            text.stylize(style, match.start(), match.end())
    return text


def address(file: str, name: str, style: str = "bold") -> Text:
    """``file:name`` as literal, styled Text."""
    return safe_line(f"{file}:{name}", style)


def provenance(item: RecallItem | DiaryItem) -> Text:
    """``owner · source · ts`` line, each value literal; ``-`` when unset."""
    line = Text(end="")
    for label, value in (("owner", item.owner), ("source", item.source_conv), ("ts", item.ts)):
        if line.plain:
            line.append("  ·  ", style="dim")
        line.append(f"{label}: ", style="dim")
        line.append_text(safe_line(value) if value else Text("-", style="dim"))
    return line


def review_banner(content: str) -> Text | None:
    """The review marks of ``content`` as a banner (None when unmarked)."""
    reasons = review_reasons(content)
    if not reasons:
        return None
    text = Text(end="")
    for reason in reasons:
        text.append_text(safe_line(f"⚑ marked for review: {reason or '(no reason given)'}", "bold"))
        text.append("\n")
    text.append("A audits what it rests on (c there clears the mark once checked) · X retracts it · "
                "lint reports it until then", style="dim")
    return text


def diary_label(key: DiaryKey, *, note: bool = True) -> Text:
    """``diary 2026-07-21 14:30#2`` (literal), with :data:`DIARY_LINK_NOTE` after it unless ``note`` is off."""
    text = safe_line(f"diary {key[0]} {key[1]}")
    if note:
        text.append(f"  ({DIARY_LINK_NOTE})", style="dim italic")
    return text


def _key_label(file: str, name: str) -> Text:
    text = safe_line(file, "bold")
    text.append(":")
    text.append_text(safe_line(name))
    return text


class _Body(Static):
    """The content; link clicks (``@click`` meta) land here and go to the view.

    Shown as :class:`KeptWhole`, so a line never breaks inside a ``[[link]]``.
    """

    def show(self, text: Text) -> None:
        """Show ``text`` (already safe) with its links kept whole when lines wrap."""
        self.update(KeptWhole.of(Content.from_rich_text(text)))

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text of the lines as drawn (a selection's rows are those lines, not the content's)."""
        visual = self._render()
        if not isinstance(visual, KeptWhole):
            return super().get_selection(selection)
        return selection.extract(str(visual.lines_at(self.content_region.width))), "\n"

    def action_follow_link(self, index: int) -> None:
        """Forward a link click to the enclosing ItemView."""
        view = next((a for a in self.ancestors if isinstance(a, ItemView)), None)
        if view is not None:
            view.action_follow_link(index)


class ItemView(VerticalScroll):
    """Read-only rendering of an item, a whole RecallFile or a diary day."""

    DEFAULT_CSS = """
    ItemView { padding: 0 1; }
    ItemView #item-title { text-style: bold; color: $accent; }
    ItemView #item-meta { color: $text-muted; }
    ItemView #item-review { display: none; background: $warning 20%; color: $text; padding: 0 1; margin-top: 1; }
    ItemView #item-review.shown { display: block; }
    ItemView #item-body { margin: 1 0; }
    ItemView .section { text-style: bold; margin-top: 1; }
    ItemView OptionList { height: auto; max-height: 10; border: none; padding: 0; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.current: tuple[str, str] | None = None
        """``(file, name)`` of the item shown, None for files, days and the empty view."""
        self.item: RecallItem | None = None
        """The item shown, as read (its content is what a delete or move expects on disk)."""
        self.shown: tuple[str, ...] = ()
        """What is on screen: ``("item", file, name)``, ``("file", file)``, ``("day", date, time)`` or ``()``."""
        self.links: list[WikiLink] = []
        """Links in the shown content, in order (click actions index into it)."""
        self.backlinks: list[tuple[str, str]] = []
        """Items linking here, as shown in the backlinks list."""
        self.diary_backlinks: list[DiaryKey] = []
        """Diary entries ``(date, HH:MM[#n])`` linking here, listed after the items."""
        self._link_targets: list[WikiLink] = []

    def compose(self) -> ComposeResult:
        yield Static(id="item-title")
        yield Static(id="item-meta")
        yield Static(id="item-review")
        yield _Body(id="item-body")
        yield Static("Links", classes="section", id="links-title")
        yield OptionList(id="item-links")
        yield Static("Backlinks", classes="section", id="backlinks-title")
        yield OptionList(id="item-backlinks")

    def on_mount(self) -> None:
        self.show_empty()

    # -- what to show -----------------------------------------------------------

    def _set(self, title: Text, meta: Text, body: Text, review: Text | None = None) -> None:
        self.query_one("#item-title", Static).update(title)
        self.query_one("#item-meta", Static).update(meta)
        banner = self.query_one("#item-review", Static)
        banner.update(review or "")
        banner.set_class(review is not None, "shown")
        self.query_one("#item-body", _Body).show(body)

    def _set_lists(self, links: list[WikiLink], catalogue: Catalogue | None, backlinks: list[tuple[str, str]],
                   diary_backlinks: list[DiaryKey] | None = None) -> None:
        links = list(dict.fromkeys(links))
        self._link_targets = links
        link_list = self.query_one("#item-links", OptionList)
        link_list.clear_options()
        for link in links:
            label = _key_label(link.file, link.name)
            if catalogue is not None and not catalogue.has(link.file, link.name):
                label.stylize("red")
                label.append("  (missing)", style="italic red")
            link_list.add_option(Option(label))
        back_list = self.query_one("#item-backlinks", OptionList)
        back_list.clear_options()
        for file, name in backlinks:
            back_list.add_option(Option(_key_label(file, name)))
        diary_backlinks = diary_backlinks or []
        for key in diary_backlinks:
            back_list.add_option(Option(diary_label(key)))
        self.backlinks, self.diary_backlinks = backlinks, diary_backlinks
        for option_list in (link_list, back_list):
            if option_list.option_count:
                option_list.highlighted = 0
        for widget_id, items in (("links", links), ("backlinks", [*backlinks, *diary_backlinks])):
            self.query_one(f"#{widget_id}-title").display = bool(items)
            self.query_one(f"#item-{widget_id}").display = bool(items)

    def show_empty(self, message: str = PICK_SOMETHING) -> None:
        """The placeholder when nothing is selected."""
        self.current = None
        self.item = None
        self.shown = ()
        self.links = []
        self._set(Text("wikimem"), Text(""), Text(message, style="dim"))
        self._set_lists([], None, [])

    def show_item(self, item: RecallItem, catalogue: Catalogue | None, *, home: bool = True) -> None:
        """Render one wiki item with provenance, links and backlinks."""
        self.current = (item.file, item.name)
        self.item = item
        self.shown = ("item", item.file, item.name)
        self.links = []
        body = render_content(item.content, catalogue, self.links, item.file)
        backlinks = catalogue.backlinks_of(item.file, item.name) if catalogue else []
        diary_backlinks = catalogue.diary_backlinks_of(item.file, item.name) if catalogue else []
        title = _key_label(item.file, item.name)
        badge = badge_for(item.content)
        if badge is not None:
            title.append("  ")
            title.append_text(badge)
        self._set(title, provenance(item), body, review_banner(item.content))
        self._set_lists(self.links, catalogue, backlinks, diary_backlinks)
        if home:
            self.scroll_home(animate=False)

    def show_missing(self, file: str, name: str) -> None:
        """The item is gone (deleted here or on disk)."""
        self.show_empty()
        self.shown = ("item", file, name)
        self._set(_key_label(file, name), Text("H: its history in git (a deleted item can be restored from there)",
                                               style="dim"), Text("This item does not exist (any more).", style="italic"))

    def show_file(self, file: str, items: list[RecallItem], catalogue: Catalogue | None,
                  meta: FileMeta | None = None) -> None:
        """A whole RecallFile: its tags and aliases (from its frontmatter), every item's heading and content."""
        self.current = None
        self.item = None
        self.shown = ("file", file)
        self.links = []
        body = Text(end="")
        for item in items:
            body.append_text(safe_line(f"## {item.name}", "bold"))
            body.append("\n")
            body.append_text(render_content(item.content, catalogue, self.links, file))
            body.append("\n\n")
        line = Text(count(len(items), "item"), style="dim")
        if meta is not None and meta.tags:
            line.append("  ·  tags: ", style="dim")
            line.append_text(safe_line(", ".join(f"#{tag}" for tag in meta.tags), "cyan"))
        if meta is not None and meta.aliases:
            line.append("  ·  also: ", style="dim")
            line.append_text(safe_line(", ".join(meta.aliases)))
        self._set(safe_line(file, "bold"), line, body)
        self._set_lists(self.links, catalogue, [])
        self.scroll_home(animate=False)

    def show_day(self, date: str, entries: list[DiaryItem], catalogue: Catalogue | None, time: str | None = None) -> None:
        """A diary day: every entry, the one ``time`` names (if given) highlighted.

        ``time`` is an entry's ``HH:MM[#n]`` (``EntryId.key``): ``14:30#2`` is
        the second entry of 14:30 and ``14:30`` the first, as in evidence
        lines. A later entry of a shared minute shows its ``#n`` after the
        heading, so the two can be told apart (and cited) from here.
        """
        self.current = None
        self.item = None
        self.shown = ("day", date, time or "")
        self.links = []
        body = Text(end="")
        for entry in entries:
            key = entry.entry_id.key
            style = "bold reverse" if time is not None and key == time else "bold"
            body.append_text(safe_line(f"## {entry.time}", style))
            if entry.ordinal > 1:
                body.append(f"  #{entry.ordinal}", style="dim")
            badge = badge_for(entry.content)
            if badge is not None:
                body.append("  ")
                body.append_text(badge)
            body.append("\n")
            body.append_text(render_content(entry.content, catalogue, self.links))
            body.append("\n")
            body.append_text(provenance(entry))
            body.append("\n\n")
        if not entries:
            body.append("No entries.", style="dim")
        hint = f"{count(len(entries), 'entry')} · p promote to the wiki · A what rests on them · X retract an entry"
        self._set(Text(f"diary {date}", style="bold"), Text(hint, style="dim"), body)
        self._set_lists(self.links, catalogue, [])
        self.scroll_home(animate=False)

    # -- following links ----------------------------------------------------------

    def action_follow_link(self, index: int) -> None:
        """Open link number ``index`` of the shown content (from a click)."""
        if 0 <= index < len(self.links):
            link = self.links[index]
            self.post_message(OpenItem(link.file, link.name))

    @on(OptionList.OptionSelected, "#item-links")
    def _link_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self._link_targets):
            link = self._link_targets[event.option_index]
            self.post_message(OpenItem(link.file, link.name))

    @on(OptionList.OptionSelected, "#item-backlinks")
    def _backlink_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        index = event.option_index
        if 0 <= index < len(self.backlinks):
            self.post_message(OpenItem(*self.backlinks[index]))
        elif 0 <= index - len(self.backlinks) < len(self.diary_backlinks):
            self.post_message(OpenDiaryDay(*self.diary_backlinks[index - len(self.backlinks)]))
