// Small DOM helpers. Data from vendors is only ever inserted as text
// (createElement + textContent), never as HTML.

/**
 * h creates an element: h('p', {class: 'x', onclick: fn}, 'text', child).
 * Attribute values are set as attributes (or, for on* and a few DOM
 * properties, as properties); children are nodes or strings (as text).
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else if (key === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (key === 'checked' || key === 'value' || key === 'disabled') {
      el[key] = value;
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

/** svg creates an SVG element: svg('line', {x1: 0, …}, children). */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== undefined && value !== null && value !== false) el.setAttribute(key, String(value));
  }
  return append(el, children);
}

/** append adds children (nodes, strings, arrays of them) to el. */
export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** replace empties el and fills it with children. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** $ finds one element by selector (in root or the document). */
export function $(selector, root = document) {
  return root.querySelector(selector);
}

let dateFormat = null; // made once: making one is costly

/** warmDates makes the date format ahead of its first use, which takes tens of ms. */
export function warmDates() {
  dateFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** when formats a record date ("2024-06-01 12:00:00.000Z") for people. */
export function when(date) {
  if (!date) return '';
  const d = new Date(date.replace(' ', 'T'));
  if (Number.isNaN(d.getTime())) return date;
  warmDates();
  return dateFormat.format(d);
}

/** ago says how long ago a record date was, roughly ("5 min ago"). */
export function ago(date, now = Date.now()) {
  const d = new Date((date || '').replace(' ', 'T')).getTime();
  if (Number.isNaN(d)) return '';
  const s = Math.max(0, Math.round((now - d) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** message turns an SDK error into a sentence for people. */
export function message(err) {
  const data = err?.response?.data;
  if (data && typeof data === 'object') {
    // note: a detail the message already says (a refused correction's) is not said twice
    const main = err.response.message || '';
    const details = Object.entries(data)
      .map(([field, v]) => (v && v.message && !main.includes(v.message) ? `${field}: ${v.message}` : ''))
      .filter(Boolean);
    if (details.length && err.response.message) return `${err.response.message} (${details.join('; ')})`;
  }
  if (err?.response?.message) return err.response.message;
  if (err?.status === 0) return 'The server could not be reached.';
  return err?.message || String(err);
}
