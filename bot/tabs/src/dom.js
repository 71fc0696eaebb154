// Elements built from data with textContent and properties only: no data ever reaches innerHTML.

export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else if (name === "class") element.className = value;
    else if (name in element && !name.includes("-")) element[name] = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

// The page's polite live region: screen readers read what lands in it.
export function announce(text) {
  // A fresh text node each time, so the same words twice are still read.
  document.getElementById("announce").replaceChildren(document.createTextNode(text));
}

let counter = 0;
export const uniqueId = (prefix) => `${prefix}-${++counter}`;

// A Teams message body is HTML: its text alone, parsed in an inert document (nothing loads or runs).
export function textOfHtml(html) {
  return new DOMParser().parseFromString(html ?? "", "text/html").body.textContent ?? "";
}

export function initials(name) {
  const words = String(name ?? "").trim().split(/\s+/).filter(Boolean);
  return (words.length > 1 ? words[0][0] + words.at(-1)[0] : (words[0] ?? "?").slice(0, 2)).toUpperCase();
}
