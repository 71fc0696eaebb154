// The board: a column per status of the kind, in the statuses' order, and Invalid apart. A card
// moves by mouse (pointer drag) or keyboard (Space picks it up, arrows choose, Space drops);
// the API judges each move and a refused one goes back with its reason.
import { call } from "./api.js";
import { announce, h, replace, uniqueId } from "./dom.js";
import { INVALID, KINDS, assigneeBadges, dueBadge, dueState } from "./fields.js";

const DRAG_START_PX = 5;

export class Board {
  constructor(root, { kind, scope, choices, items, onOpen }) {
    Object.assign(this, { root, kind, scope, choices, onOpen });
    this.items = new Map(items.map((item) => [item._id, item]));
    this.pending = 0; // moves awaiting the API: a refresh waits for them
    this.help = uniqueId("board-help");
  }

  get busy() { return this.pending > 0 || Boolean(this.dragging) || Boolean(this.grabbed); }

  columns() {
    const names = this.choices.statuses.map((status) => status.name);
    const invalid = [...this.items.values()].some((item) => !names.includes(item.status));
    return invalid ? [...names, INVALID] : names;
  }

  // Cards in a column: by priority in the catalogue's order, then newest number first.
  before(a, b) {
    this.order ??= new Map(this.choices.priorities.map((priority, index) => [priority.name, index]));
    return (this.order.get(a.priority) ?? 99) - (this.order.get(b.priority) ?? 99) || b.internalId - a.internalId;
  }

  render() {
    const sorted = [...this.items.values()].sort((a, b) => this.before(a, b));
    const names = this.choices.statuses.map((status) => status.name);
    const columnOf = (item) => (names.includes(item.status) ? item.status : INVALID);
    replace(this.root,
      h("p", { id: this.help, class: "visually-hidden" },
        "Press Enter to open. Press Space to pick the card up, the left and right arrows to choose a column, Space to drop it there, Escape to cancel."),
      h("div", { class: "board" }, this.columns().map((name) =>
        this.column(name, sorted.filter((item) => columnOf(item) === name)))),
    );
  }

  column(name, items) {
    const heading = uniqueId("column");
    const invalid = name === INVALID;
    return h("section", { class: `column${invalid ? " invalid" : ""}`, dataset: { status: name, drop: invalid ? "no" : "yes" } },
      h("h2", { id: heading },
        h("span", { class: "name" }, name), " ",
        h("span", { class: "count", "aria-label": `${items.length} items` }, String(items.length))),
      invalid ? h("p", { class: "hint" }, "No mapped status: open an item to give it one.") : null,
      h("ul", { class: "cards", "aria-labelledby": heading }, items.map((item) => this.card(item))),
    );
  }

  card(item) {
    const label = KINDS[this.kind].label;
    const title = uniqueId("card");
    const card = h("li", {
      class: "card", tabIndex: 0, dataset: { id: item._id },
      "aria-labelledby": title, "aria-describedby": this.help,
      onkeydown: (event) => this.key(event, item),
      onpointerdown: (event) => this.press(event, item),
    },
    h("div", { class: "card-top" },
      h("span", { class: "number" }, `${label} #${item.internalId}`),
      h("span", { class: `priority p-${String(item.priority).toLowerCase()}` }, item.priority)),
    h("button", { type: "button", class: "title link", id: title, tabIndex: -1, onclick: () => this.onOpen(item) }, item.name),
    h("div", { class: "card-bottom" }, assigneeBadges(item), dueBadge(item, this.choices.statuses)),
    h("p", { class: "refusal", role: "alert", hidden: true }),
    );
    return card;
  }

  cardElement(id) { return this.root.querySelector(`li.card[data-id="${CSS.escape(id)}"]`); }

  // Keyboard: Enter opens; Space grabs and drops; arrows choose a column while grabbed, and move
  // between cards (up, down) and columns (left, right) otherwise; Escape cancels.
  key(event, item) {
    const card = event.currentTarget;
    const columns = [...this.root.querySelectorAll("section.column")];
    const here = columns.indexOf(card.closest("section.column"));
    if (this.grabbed) {
      if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
        const step = event.key === "ArrowLeft" ? -1 : 1;
        let target = this.grabbed.target + step;
        while (columns[target]?.dataset.drop === "no") target += step;
        if (columns[target]) {
          this.grabbed.target = target;
          this.mark(columns[target]);
          announce(`Over ${columns[target].dataset.status}`);
        }
      } else if (event.key === " " || event.key === "Enter") {
        const target = columns[this.grabbed.target].dataset.status;
        this.drop();
        this.move(item, target);
      } else if (event.key === "Escape") {
        this.drop();
        announce(`${this.describe(item)} stays in ${item.status}`);
      } else return;
      event.preventDefault();
      return;
    }
    if (event.key === "Enter") this.onOpen(item);
    else if (event.key === " ") {
      if (columns[here].dataset.drop === "no") {
        announce(`${this.describe(item)} is invalid: open it to give it a mapped status`);
      } else {
        this.grabbed = { id: item._id, target: here };
        card.classList.add("grabbed");
        card.setAttribute("aria-roledescription", "picked up card");
        this.mark(columns[here]);
        announce(`Picked up ${this.describe(item)} in ${item.status}. Left and right arrows choose a column, Space drops it, Escape cancels.`);
      }
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const sibling = event.key === "ArrowDown" ? card.nextElementSibling : card.previousElementSibling;
      sibling?.focus();
    } else if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      const column = columns[here + (event.key === "ArrowLeft" ? -1 : 1)];
      column?.querySelector("li.card")?.focus();
    } else return;
    event.preventDefault();
  }

  drop() {
    this.cardElement(this.grabbed.id)?.classList.remove("grabbed");
    this.cardElement(this.grabbed.id)?.removeAttribute("aria-roledescription");
    this.grabbed = null;
    this.mark(null);
  }

  mark(column) {
    for (const each of this.root.querySelectorAll("section.column")) each.classList.toggle("target", each === column);
  }

  describe(item) { return `${KINDS[this.kind].label} ${item.internalId}, ${item.name},`; }

  // Mouse, pen or touch: the card follows the pointer; let go over another column to move it.
  press(event, item) {
    if (event.button !== 0 || event.target.closest("button.title") && event.pointerType === "touch") return;
    const card = event.currentTarget;
    const start = { x: event.clientX, y: event.clientY };
    const onMove = (moved) => {
      const dx = moved.clientX - start.x, dy = moved.clientY - start.y;
      if (!this.dragging && Math.hypot(dx, dy) < DRAG_START_PX) return;
      this.dragging = item._id;
      card.classList.add("dragging");
      card.style.setProperty("transform", `translate(${dx}px, ${dy}px)`);
      this.mark(this.columnAt(moved, card));
    };
    const onUp = (released) => {
      card.removeEventListener("pointermove", onMove);
      card.removeEventListener("pointerup", onUp);
      card.removeEventListener("pointercancel", onUp);
      if (!this.dragging) return;
      const column = released.type === "pointerup" ? this.columnAt(released, card) : null;
      this.dragging = null;
      card.classList.remove("dragging");
      card.style.removeProperty("transform");
      this.mark(null);
      // A drag is not a click: the title under the pointer must not open.
      card.addEventListener("click", (click) => click.stopPropagation(), { capture: true, once: true });
      if (column && column.dataset.drop === "yes") this.move(item, column.dataset.status);
    };
    card.setPointerCapture(event.pointerId);
    card.addEventListener("pointermove", onMove);
    card.addEventListener("pointerup", onUp);
    card.addEventListener("pointercancel", onUp);
  }

  columnAt(event, card) {
    card.style.setProperty("pointer-events", "none");
    const under = document.elementFromPoint(event.clientX, event.clientY);
    card.style.removeProperty("pointer-events");
    return under?.closest("section.column") ?? null;
  }

  // The card moves at once; the API's refusal puts it back and says why. Only the card and the
  // two counts change on the page, however many cards the board holds.
  async move(item, status) {
    if (status === item.status) return;
    const before = item.status;
    this.pending += 1;
    // Asked first: drawing the card in its new column (a layout of the whole board) then runs
    // while the API answers, not before the request leaves.
    const answered = call(`/odata/${KINDS[this.kind].plural}('${item._id}')`, { method: "PATCH", body: { status }, scope: this.scope });
    this.place(item, status);
    try {
      await answered;
      announce(`Moved ${this.describe(item)} to ${status}`);
    } catch (error) {
      const card = this.place(item, before);
      const refusal = card.querySelector(".refusal");
      refusal.hidden = false;
      refusal.textContent = `Not moved: ${error.message}`;
      card.classList.add("refused");
      announce(`${this.describe(item)} not moved to ${status}: ${error.message}`);
    } finally {
      this.pending -= 1;
    }
  }

  place(item, status) {
    item.status = status;
    const old = this.cardElement(item._id);
    const card = this.card(item);
    old.remove();
    this.cardsOf(status).prepend(card);
    this.recount();
    card.focus();
    return card;
  }

  cardsOf(status) { return this.root.querySelector(`section.column[data-status="${CSS.escape(status)}"] ul`); }

  recount() {
    for (const each of this.root.querySelectorAll("section.column")) {
      const count = each.querySelectorAll("li.card").length;
      const shown = each.querySelector("h2 .count");
      shown.textContent = String(count);
      shown.setAttribute("aria-label", `${count} items`);
    }
  }

  // The stream told of changes to `ids`; `items` is what the list holds of them now (an item
  // absent was deleted). Only the cards whose look changed are drawn again, in their place: the
  // board's own moves come back as it shows them already and draw nothing. A column appearing
  // or going (Invalid) draws the whole board.
  update(ids, items) {
    const fresh = new Map(items.map((item) => [item._id, item]));
    const columns = this.columns().join("\n");
    const statuses = this.choices.statuses;
    const changed = ids.filter((id) => looks(this.items.get(id), statuses) !== looks(fresh.get(id), statuses));
    for (const id of ids) {
      if (fresh.has(id)) this.items.set(id, fresh.get(id));
      else this.items.delete(id);
    }
    if (this.columns().join("\n") !== columns) return this.renderKeepingFocus();
    const names = this.choices.statuses.map((status) => status.name);
    for (const id of changed) {
      const old = this.cardElement(id);
      const focused = old?.contains(document.activeElement);
      old?.remove();
      const item = fresh.get(id);
      if (!item) continue;
      const list = this.cardsOf(names.includes(item.status) ? item.status : INVALID);
      const next = [...list.children].find((each) => this.before(item, this.items.get(each.dataset.id)) < 0);
      const card = this.card(item);
      list.insertBefore(card, next ?? null);
      if (focused) card.focus();
    }
    this.recount();
  }

  renderKeepingFocus() {
    const focused = document.activeElement?.closest?.("li.card")?.dataset.id;
    this.render();
    if (focused) this.cardElement(focused)?.focus();
  }
}

// What a card shows of an item (undefined for none): equal looks, nothing to draw.
const looks = (item, statuses) => item && JSON.stringify([
  item.internalId, item.name, item.status, item.priority, item.dueDate && dueState(item, statuses),
  item.dueDate, (item.assignedTo ?? []).map((user) => [user.displayName, user.email]),
]);
