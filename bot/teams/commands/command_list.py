"""The help card's lines: every chat command as typed, what it does, and the buttons it offers.
Kept beside the grammar (a test runs every shortcut through it), in the order users need them:
the everyday ones, which the short help shows, first; then the buttons those lines already
say, which no help lists again."""

from cards.help import CommandHelp

# Every shortcut runs as written.
COMMANDS: tuple[CommandHelp, ...] = (
    CommandHelp(
        "bugs, open bugs, my bugs", "The channel's bugs: all, not done, yours", everyday=True
    ),
    CommandHelp("bug {id}", "One bug and buttons to change it, e.g. bug 12", everyday=True),
    CommandHelp("new bug {title}", "Create a bug; without a title, open the form", everyday=True),
    CommandHelp(
        "assign bug {id} to {name}",
        "Add a teammate to a bug's assignees, by name or @mention",
        everyday=True,
    ),
    CommandHelp("tasks, my tasks, task {id}, …", "The same for tasks", everyday=True),
    CommandHelp("bugs", "The channel's bugs", shortcut="Bugs", listed=False),
    CommandHelp("my bugs", "Bugs assigned to you", shortcut="My bugs", listed=False),
    CommandHelp("new bug", "Open the form for a new bug", shortcut="New bug", listed=False),
    CommandHelp("my tasks", "Tasks assigned to you", shortcut="My tasks", listed=False),
    CommandHelp("new task", "Open the form for a new task", shortcut="New task", listed=False),
    CommandHelp("help", "The everyday commands; help all: every one"),
    CommandHelp("bugs/my, bugs/open", "Bugs assigned to you, bugs not done yet"),
    CommandHelp("bugs/name/{text}", "Bugs whose title contains the text"),
    CommandHelp("bugs/status/{status}", "Bugs in a status, e.g. bugs/status/in-progress"),
    CommandHelp("bugs/priority/{priority}", "Bugs of a priority"),
    CommandHelp("bugs/assigned/{upn}", "Bugs assigned to someone"),
    CommandHelp("bug/{id}", "One bug, e.g. bug/12"),
    CommandHelp("bug/update/{id}/status/{status}", "Change a bug's status"),
    CommandHelp("bug/update/{id}/priority/{priority}", "Change a bug's priority"),
    CommandHelp("bug/update/{id}/assigned/{name, upn or me}", "Make someone a bug's only assignee"),
    CommandHelp("unassign bug {id} from {name}", "Take someone off a bug: a name, @mention or me"),
    CommandHelp("bug/clone/{id}", "Copy a bug"),
    CommandHelp("close bug {id}", "Move a bug to Done"),
    CommandHelp("delete bug {id}", "Delete a bug for good, once you confirm"),
    CommandHelp("discuss bug {id}", "Start the bug's thread in this channel, or link to it"),
    CommandHelp(
        "rules", "The channel's event rules and how each last fired (new rule: how to add one)"
    ),
    CommandHelp("notify on, notify off", "In our 1:1 chat: a message when you're assigned an item"),
    CommandHelp(
        "settings", "Switch the channel's notifications on or off; digests, quiet hours, due soon"
    ),
    CommandHelp(
        "sync, sync {project}, sync {project} now",
        "The channel's synced projects: state, what waits, the last error; now: pull at once",
    ),
)
