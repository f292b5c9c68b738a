"""Regenerate the bundled demo memory through the public API (run from the repo root).

The demo is checked in as plain files; this script documents how it was
made and rebuilds it byte for byte apart from timestamps (the journal's,
the baseline's, and that of the one item written without a ``ts``). The
baseline (``lint-baseline.json``) accepts the files as built, so a copy
(``cp -r``, a git checkout, an installed package: every file gets a new
mtime) lints without drift.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from wikimem import MemoryStore, accept_current_state  # noqa: E402

HERE = Path(__file__).resolve().parent

WIKI = [
    ("preferences", "likes-the-sea", "喜欢海边，提到过想去海边玩。[[daily_life:beach-trip-plan]]",
     "user:xnne", "conv_20260710", "2026-07-10T03:00:00+00:00"),
    ("preferences", "手冲咖啡", "只喝手冲咖啡，从不加糖。早上第一杯一定要自己冲。[[daily_life:morning-routine]]",
     "user:xnne", "conv_20260712", "2026-07-12T01:20:00+00:00"),
    ("preferences", "music", "Listens to post-rock while working; Mogwai and 惘闻 are favourites. "
     "Dislikes lyrics when concentrating.", "agent:companion", "conv_20260803", "2026-08-03T12:00:00+00:00"),
    ("preferences", "food-allergies", "Allergic to peanuts — never suggest satay or 花生酱.",
     "user:xnne", "conv_20260601", "2026-06-01T09:00:00+00:00"),
    ("daily_life", "beach-trip-plan", "计划夏天去海边旅行，看日出。想去青岛或者厦门。[[people:lin]]",
     "agent:companion", "conv_20260710", "2026-07-10T03:02:00+00:00"),
    ("daily_life", "morning-routine", "Wakes at 6:30, pour-over coffee, then a 20 minute run by the river. "
     "[[health:knee-injury]] made the runs shorter since October.",
     "agent:companion", "conv_20261002", "2026-10-02T23:10:00+00:00"),
    ("daily_life", "weekend-hobby", "周末学做陶艺，已经做了三个杯子，其中一个送给了林。[[people:lin]]",
     "agent:companion", "conv_20260905", "2026-09-05T10:00:00+00:00"),
    ("work", "current-job", "换了工作，去了一家做机器人的公司，负责视觉算法。Team lead is Priya. [[people:priya]]",
     "user:xnne", "conv_20260721", "2026-07-21T06:30:00+00:00"),
    ("work", "deadline-anxiety", "Worries about the Q4 demo deadline; sleeps badly the week before a release. "
     "[[work:current-job]] [[work:q4-demo]]", "agent:companion", "conv_20261105", "2026-11-05T14:00:00+00:00"),
    ("work", "tools", "Uses a split keyboard, neovim and tmux. Prefers terminal apps over web dashboards.",
     "user:xnne", "conv_20260815", "2026-08-15T08:00:00+00:00"),
    ("people", "lin", "林是大学室友，现在在厦门做设计师。每年生日都会互寄明信片。",
     "user:xnne", "conv_20260710", "2026-07-10T03:05:00+00:00"),
    ("people", "priya", "Priya leads the perception team. Direct, kind, likes long walks after lunch.",
     "agent:companion", "conv_20260722", "2026-07-22T09:00:00+00:00"),
    ("people", "mother", "妈妈住在成都，每周日晚上视频通话。最近在学用智能手机拍照。",
     "user:xnne", "conv_20260901", "2026-09-01T12:00:00+00:00"),
    ("health", "knee-injury", "Twisted the left knee on a trail run in late September; physio twice a week. "
     "Avoid suggesting long hikes until December.", "agent:companion", "conv_20260930", "2026-09-30T18:00:00+00:00"),
    ("health", "sleep", "睡眠不太好，睡前会刷手机。试过不带手机进卧室，坚持了一周。[[work:deadline-anxiety]]",
     "agent:companion", "conv_20261110", "2026-11-10T15:00:00+00:00"),
    ("agent_notes", "untrusted-text-demo", "This memory came from a chat and contains text that looks like "
     "markup: [bold red]not bold[/bold red], [link=https://example.com]not a link[/link] and a fake escape "
     "\\x1b[31m. wikimem-tui shows all of it literally.", "agent:companion", "conv_20261120",
     "2026-11-20T10:00:00+00:00"),
    ("agent_notes", "conversation-style", "Replies in the language the user wrote in; mixes 中文 and English "
     "freely. Keep answers short in the morning.", None, None, None),
]

DIARY = [
    ("2026-11-16", "08:05", "Morning run cut to 10 minutes, the knee hurt again. [[health:knee-injury]]"),
    ("2026-11-16", "21:40", "和妈妈视频，她学会了用手机拍夜景，很开心。[[people:mother]]"),
    ("2026-11-19", "13:15", "Lunch walk with Priya; talked about the Q4 demo scope. [[people:priya]]"),
    ("2026-11-22", "10:30", "周末陶艺课，做了一个茶壶，壶嘴歪了。[[daily_life:weekend-hobby]]"),
    ("2026-11-24", "23:50", "睡前又刷了一小时手机，说明天一定早睡。[[health:sleep]]"),
    ("2026-11-25", "09:10", "Demo rehearsal went well; the robot found all six cups."),
    ("2026-11-25", "09:10", "Same minute, second event: Priya asked for a longer video of the grasping test."),
    ("2026-11-27", "19:00", "林寄来了厦门的明信片，说明年夏天一起去海边看日出。[[daily_life:beach-trip-plan]]"),
    ("2026-11-28", "07:45", "Pour-over with new beans from Yunnan; said it tasted like apricot."),
]


def main() -> None:
    for sub in ("wiki", "diary", "journal.jsonl", "lint-baseline.json", ".wikimem.lock"):
        path = HERE / sub
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    store = MemoryStore(HERE)
    for file, name, content, owner, source, ts in WIKI:
        store.add(file, name, content, owner=owner, source_conv=source, ts=ts)
    for date, time, content in DIARY:
        store.diary.append(content, date=date, time=time, owner="agent:companion",
                           ts=f"{date}T{time}:00+00:00")
    accept_current_state(HERE, by="build_demo")
    (HERE / ".wikimem.lock").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
