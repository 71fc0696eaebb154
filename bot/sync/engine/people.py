"""The channel's team members as a source knows them: matched to a source user by the user's
`mapping` array first (kept from earlier matches or set by hand), else by email (Azure DevOps,
Jira) or Entra object id (Planner); each new match is kept in the array, so a member whose
address differs there, or whom the source shows without one, is matched once and for all."""

from dataclasses import dataclass, field

from sqlalchemy import select

from bot.db.tables import TeamMember, User
from bot.db.uow import UnitOfWork
from bot.directory.source_people import keep_match, known_at
from bot.projects.sources import SourceKind
from bot.sync.source import SourcePerson


@dataclass(frozen=True, slots=True)
class Member:
    user_id: str
    display_name: str
    email: str | None
    entra_id: str


@dataclass
class People:
    source: SourceKind
    hostname: str
    members: dict[str, Member]  # user id → the member
    by_source_id: dict[str, str]  # the source user's id → user id (the mapping array)
    by_email: dict[str, str]  # folded email → user id
    as_known: dict[str, SourcePerson] = field(default_factory=dict)  # user id → the source user
    new: list[tuple[str, SourcePerson]] = field(default_factory=list)  # matches not yet kept

    def match(self, person: SourcePerson) -> Member | None:
        """The member this source user is, if any."""
        user_id = self.by_source_id.get(person.id)
        if user_id is None:
            user_id = self._by_address(person)
            if user_id is None:
                return None
            self.by_source_id[person.id] = user_id
            self.new.append((user_id, person))
        return self.members.get(user_id)

    def _by_address(self, person: SourcePerson) -> str | None:
        if self.source is SourceKind.PLANNER:
            return next((m.user_id for m in self.members.values() if m.entra_id == person.id), None)
        return self.by_email.get(fold(person.email or ""))

    def person(self, user_id: str) -> SourcePerson | None:
        """The member as the source knows them (None: the source cannot name them)."""
        known = self.as_known.get(user_id)
        if known is not None:
            return known
        member = self.members.get(user_id)
        if member is None:
            return None
        if self.source is SourceKind.PLANNER:
            return SourcePerson(id=member.entra_id, display_name=member.display_name)
        if member.email is None:
            return None
        return SourcePerson(id=member.email, display_name=member.display_name, email=member.email)

    async def keep(self, uow: UnitOfWork) -> None:
        """Keep the matches made since the last call in the users' mapping arrays."""
        for user_id, person in self.new:
            await keep_match(
                uow,
                user_id=user_id,
                source=self.source.value,
                hostname=self.hostname,
                source_user_id=person.id,
                display_name=person.display_name,
                email=person.email,
            )
        self.new.clear()


async def load_people(
    uow: UnitOfWork, *, team_id: str, source: SourceKind, hostname: str
) -> People:
    rows = await uow.rows(
        select(User.id, User.email, User.display_name, User.source_id)
        .join(TeamMember, TeamMember.user_id == User.id)
        .where(TeamMember.team_id == team_id)
    )
    members = {
        row["id"]: Member(row["id"], row["display_name"], row["email"], row["source_id"])
        for row in rows
    }
    mapped = await known_at(uow, team_id=team_id, source=source.value, hostname=hostname)
    return People(
        source=source,
        hostname=hostname,
        members=members,
        by_source_id={m.source_user_id: m.user_id for m in mapped},
        by_email={fold(m.email): m.user_id for m in members.values() if m.email},
        as_known={
            m.user_id: SourcePerson(
                id=m.source_user_id,
                display_name=m.display_name,
                email=m.email or members[m.user_id].email,
            )
            for m in mapped
        },
    )


def fold(email: str) -> str:
    return email.strip().casefold()
