// Comparisons behind the revision view: a word diff for text fields,
// attributes matched by name, file lists as sets. Pure functions, no DOM.

// Above this many cells the word LCS is not worth it: the texts are shown
// as wholly removed and wholly added instead.
const maxCells = 4_000_000;

/**
 * wordDiff compares two texts word by word (longest common subsequence over
 * words and punctuation, whitespace kept with the token before it) and returns segments in
 * order: {op: 'same', a, b} (the text on each side), {op: 'del', text} (only
 * in a) or {op: 'ins', text} (only in b). Adjacent segments of one kind are
 * merged.
 */
export function wordDiff(a, b) {
  const x = tokens(a);
  const y = tokens(b);
  let start = 0;
  while (start < x.length && start < y.length && key(x[start]) === key(y[start])) start++;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && key(x[endX - 1]) === key(y[endY - 1])) {
    endX--;
    endY--;
  }
  const out = [];
  for (let i = 0; i < start; i++) out.push({ op: 'same', a: x[i], b: y[i] });
  out.push(...middle(x.slice(start, endX), y.slice(start, endY)));
  for (let i = endX, j = endY; i < x.length; i++, j++) out.push({ op: 'same', a: x[i], b: y[j] });
  return merge(out);
}

// tokens splits a text into numbers ("0.9", "1,250.5", "-3"), words
// (letters and digits) and single other characters, each with the
// whitespace after it: "shoe." is "shoe" and ".", "runner-pro" is
// "runner", "-" and "pro"; a number is one token, so that 0.9 → 1.1 is one
// change rather than a digit here and there.
function tokens(text) {
  return String(text ?? '').match(/^\s+|(?<![\p{L}\p{N}])[-+]?\p{N}+(?:[.,]\p{N}+)*(?!\p{N})\s*|[\p{L}\p{N}]+\s*|[^\s\p{L}\p{N}]\s*/gu) || [];
}

function key(token) {
  return token.trimEnd();
}

// middle diffs the parts that differ, after the common prefix and suffix.
function middle(x, y) {
  const n = x.length;
  const m = y.length;
  if (n === 0) return y.map((t) => ({ op: 'ins', text: t }));
  if (m === 0) return x.map((t) => ({ op: 'del', text: t }));
  if (n * m > maxCells) {
    return [...x.map((t) => ({ op: 'del', text: t })), ...y.map((t) => ({ op: 'ins', text: t }))];
  }
  // lcs[i*(m+1)+j]: length of the LCS of x[i:] and y[j:]
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = key(x[i]) === key(y[j])
        ? lcs[(i + 1) * w + j + 1] + 1
        : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (key(x[i]) === key(y[j])) {
      out.push({ op: 'same', a: x[i++], b: y[j++] });
    } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
      out.push({ op: 'del', text: x[i++] });
    } else {
      out.push({ op: 'ins', text: y[j++] });
    }
  }
  while (i < n) out.push({ op: 'del', text: x[i++] });
  while (j < m) out.push({ op: 'ins', text: y[j++] });
  return out;
}

function merge(segments) {
  const out = [];
  for (const s of segments) {
    const last = out[out.length - 1];
    if (last && last.op === s.op) {
      if (s.op === 'same') {
        last.a += s.a;
        last.b += s.b;
      } else {
        last.text += s.text;
      }
    } else {
      out.push({ ...s });
    }
  }
  return out;
}

// words counts the words (runs of letters and digits) of a text.
function words(text) {
  return (String(text ?? '').match(/[\p{L}\p{N}]+/gu) || []).length;
}

/**
 * rewriteRule says when a text is rewritten rather than edited: at least
 * minWords words on one side, and at least share of the words of both
 * sides removed or added. An inline diff of such a text alternates struck
 * and added fragments, so it reads better before | after, side by side.
 */
export const rewriteRule = { minWords: 30, share: 0.5 };

/**
 * rewritten is the share of the words of a and b that the word diff
 * removes or adds (0 to 1) when b rewrites a by rewriteRule, else null.
 */
export function rewritten(a, b) {
  const total = words(a) + words(b);
  if (!words(a) || !words(b) || Math.max(words(a), words(b)) < rewriteRule.minWords) return null;
  const changed = wordDiff(a, b).reduce((n, s) => n + (s.op === 'same' ? 0 : words(s.text)), 0);
  return changed / total >= rewriteRule.share ? changed / total : null;
}

/**
 * compareAttributes lines up the product's attributes now, at submission
 * (base) and as proposed, by attribute name. Accepting replaces or adds the
 * proposed attributes by name and keeps the others, so each row's status
 * says what accepting does to the product as it is now: 'added' (no such
 * attribute now), 'changed', 'unchanged', 'removed' (proposed empty) or
 * 'kept' (not in the proposal). Each row: {name, now, base, proposed
 * (undefined when not proposed), isProposed, status, changedSince (now
 * differs from base)}. Proposed rows come first.
 */
export function compareAttributes(now, base, proposed) {
  const nowBy = byName(now);
  const baseBy = byName(base);
  const propBy = byName(proposed);
  const names = [...new Set([...propBy.keys(), ...nowBy.keys(), ...baseBy.keys()])];
  return names.map((name) => {
    const isProposed = propBy.has(name);
    const n = nowBy.get(name);
    const p = propBy.get(name);
    let status = 'kept';
    if (isProposed) {
      if (n === undefined || n === '') status = p ? 'added' : 'unchanged';
      else if (!p) status = 'removed';
      else status = n === p ? 'unchanged' : 'changed';
    }
    return {
      name,
      now: n,
      base: baseBy.get(name),
      proposed: isProposed ? p : undefined,
      isProposed,
      status,
      changedSince: (n || '') !== (baseBy.get(name) || ''),
    };
  });
}

/** optionIds are the option ids attribute lists name. */
export function optionIds(...lists) {
  return lists.flatMap((l) => (Array.isArray(l) ? l : [])).map((a) => a?.optionId).filter(Boolean).map(String);
}

/** optionOf finds the option of attribute name in a list of attributes ({attribute, optionId}). */
export function optionOf(list, name, byId) {
  const a = (Array.isArray(list) ? list : []).find((x) => x?.attribute === name);
  return a?.optionId ? byId.get(String(a.optionId)) : undefined;
}

/**
 * collapse shortens the long unchanged stretches of a word diff: a 'same'
 * segment longer than about keep*3 characters keeps keep characters at each
 * end that touches a change (cut at a word) and becomes {op: 'fold', head,
 * hidden, tail} in between, hidden holding the full text.
 */
export function collapse(segments, keep = 90) {
  return segments.map((s, i) => {
    if (s.op !== 'same') return s;
    const text = s.b;
    if (text.length <= keep * 3) return s;
    const first = i === 0;
    const last = i === segments.length - 1;
    let head = first ? '' : text.slice(0, keep);
    let tail = last ? '' : text.slice(text.length - keep);
    if (head) head = head.slice(0, Math.max(head.lastIndexOf(' ') + 1, 1));
    if (tail) tail = tail.slice(tail.indexOf(' ') + 1);
    return { op: 'fold', head, hidden: text.slice(head.length, text.length - tail.length), tail, text };
  });
}

// byName maps attribute name to detail (the first one of a name wins).
function byName(list) {
  const out = new Map();
  for (const a of Array.isArray(list) ? list : []) {
    if (a && typeof a.attribute === 'string' && !out.has(a.attribute)) {
      out.set(a.attribute, typeof a.detail === 'string' ? a.detail : String(a.detail ?? ''));
    }
  }
  return out;
}

/**
 * compareLists marks what a proposed list (files, which replace the whole
 * list) adds and drops: {base: [{text, op: 'same'|'del'}], proposed: [{text,
 * op: 'same'|'ins'}]}.
 */
export function compareLists(base, proposed) {
  const b = Array.isArray(base) ? base.map(String) : [];
  const p = Array.isArray(proposed) ? proposed.map(String) : [];
  const inP = new Set(p);
  const inB = new Set(b);
  return {
    base: b.map((text) => ({ text, op: inP.has(text) ? 'same' : 'del' })),
    proposed: p.map((text) => ({ text, op: inB.has(text) ? 'same' : 'ins' })),
  };
}

/**
 * changedSince reports whether a field's current value differs from its
 * value when the proposal was made. Attributes compare by name and detail,
 * in any order; files compare as lists.
 */
export function changedSince(field, now, base) {
  if (field === 'attributes') {
    const a = [...byName(now)].filter(([, d]) => d !== '').sort();
    const b = [...byName(base)].filter(([, d]) => d !== '').sort();
    return JSON.stringify(a) !== JSON.stringify(b);
  }
  if (field === 'files') {
    return JSON.stringify(Array.isArray(now) ? now : []) !== JSON.stringify(Array.isArray(base) ? base : []);
  }
  return String(now ?? '') !== String(base ?? '');
}
