// A short unified-style diff of two texts, line by line, for `types --check`: enough to see what changed, not
// a patch to apply. The common head and tail are cut first; the middle is compared by longest common subsequence
// when it is small enough, else shown as removed and added whole.

/** Lines compared by LCS at most (old × new); past it the middle is shown as a replacement. */
const MAX_LCS_CELLS = 4_000_000;

export interface DiffOptions {
  /** Unchanged lines shown around each change (default 2). */
  context?: number;
  /** Lines of output at most; the rest is counted in a last line (default 60). */
  maxLines?: number;
}

type Edit = { kind: ' ' | '-' | '+'; line: string; oldNo: number; newNo: number };

/** `--- a` / `+++ b` and hunks (`@@ -l,n +l,n @@`), or '' when the texts are the same. */
export function lineDiff(oldText: string, newText: string, labels: [string, string], options: DiffOptions = {}): string {
  if (oldText === newText) return '';
  const context = options.context ?? 2;
  const maxLines = options.maxLines ?? 60;
  const edits = diffLines(splitLines(oldText), splitLines(newText));
  const out = [`--- ${labels[0]}`, `+++ ${labels[1]}`];
  let index = 0;
  while (index < edits.length) {
    const start = edits.findIndex((edit, at) => at >= index && edit.kind !== ' ');
    if (start === -1) break;
    // A hunk runs on while the next change is within 2 × context unchanged lines.
    let end = start;
    for (let at = start; at < edits.length && at - end <= 2 * context; at++) {
      if (edits[at]!.kind !== ' ') end = at;
    }
    const from = Math.max(index, start - context);
    const to = Math.min(edits.length - 1, end + context);
    const hunk = edits.slice(from, to + 1);
    const oldLines = hunk.filter((edit) => edit.kind !== '+').length;
    const newLines = hunk.filter((edit) => edit.kind !== '-').length;
    out.push(`@@ -${hunk[0]!.oldNo},${oldLines} +${hunk[0]!.newNo},${newLines} @@`);
    for (const edit of hunk) out.push(`${edit.kind}${edit.line}`);
    index = to + 1;
  }
  if (out.length > maxLines) {
    const hidden = out.length - maxLines;
    return [...out.slice(0, maxLines), `… ${hidden} more line${hidden === 1 ? '' : 's'} of diff`].join('\n') + '\n';
  }
  return out.join('\n') + '\n';
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function diffLines(a: string[], b: string[]): Edit[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const edits: Edit[] = [];
  let oldNo = 1;
  let newNo = 1;
  const push = (kind: Edit['kind'], line: string) => {
    edits.push({ kind, line, oldNo, newNo });
    if (kind !== '+') oldNo++;
    if (kind !== '-') newNo++;
  };
  for (let i = 0; i < head; i++) push(' ', a[i]!);
  for (const [kind, line] of middleEdits(midA, midB)) push(kind, line);
  for (let i = a.length - tail; i < a.length; i++) push(' ', a[i]!);
  return edits;
}

function middleEdits(a: string[], b: string[]): [Edit['kind'], string][] {
  if (a.length * b.length > MAX_LCS_CELLS) {
    return [...a.map((line): [Edit['kind'], string] => ['-', line]), ...b.map((line): [Edit['kind'], string] => ['+', line])];
  }
  // lengths[i * (b.length + 1) + j]: the LCS of a[i..] and b[j..].
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        a[i] === b[j]
          ? lengths[(i + 1) * width + j + 1]! + 1
          : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  const edits: [Edit['kind'], string][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      edits.push([' ', a[i]!]);
      i++;
      j++;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) {
      edits.push(['-', a[i]!]);
      i++;
    } else {
      edits.push(['+', b[j]!]);
      j++;
    }
  }
  while (i < a.length) edits.push(['-', a[i++]!]);
  while (j < b.length) edits.push(['+', b[j++]!]);
  return edits;
}
