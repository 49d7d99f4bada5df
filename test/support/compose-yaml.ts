/**
 * Reads the block-style YAML subset docker-compose.yml is written in: nested maps by
 * indentation, `&anchor` / `*alias`, flow lists `[a, "b"]` and flow maps `{ k: v }`, quoted
 * or plain scalars, `#` comment lines. Anything else (block lists, multi-line strings) throws,
 * so the compose file stays in what this test can check.
 * TODO: replace with a YAML parser once one is a direct devDependency.
 */
export type YamlValue = string | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  readonly indent: number;
  readonly text: string;
  readonly number: number;
}

export function parseComposeYaml(source: string): Record<string, YamlValue> {
  const lines: Line[] = source
    .split('\n')
    .map((raw, i) => ({ indent: raw.length - raw.trimStart().length, text: raw.trim(), number: i + 1 }))
    .filter((line) => line.text !== '' && !line.text.startsWith('#'));
  const anchors = new Map<string, YamlValue>();
  let position = 0;

  const block = (indent: number): Record<string, YamlValue> => {
    const map: Record<string, YamlValue> = {};
    while (position < lines.length) {
      const line = lines[position] as Line;
      if (line.indent < indent) break;
      if (line.indent > indent || line.text.startsWith('- ')) throw new Error(`line ${line.number}: unsupported YAML "${line.text}"`);
      const colon = line.text.indexOf(':');
      if (colon <= 0) throw new Error(`line ${line.number}: expected "key: value"`);
      const key = line.text.slice(0, colon).trim();
      let rest = line.text.slice(colon + 1).trim();
      position += 1;
      let anchor: string | undefined;
      if (rest.startsWith('&')) {
        anchor = rest.slice(1);
        rest = '';
      }
      const next = lines[position];
      const value = rest === '' ? (next !== undefined && next.indent > indent ? block(next.indent) : '') : inline(rest, line.number);
      if (anchor !== undefined) anchors.set(anchor, value);
      map[key] = value;
    }
    return map;
  };

  const inline = (text: string, number: number): YamlValue => {
    if (text.startsWith('*')) {
      const value = anchors.get(text.slice(1));
      if (value === undefined) throw new Error(`line ${number}: unknown alias ${text}`);
      return value;
    }
    if (text.startsWith('[') && text.endsWith(']')) return splitFlow(text.slice(1, -1)).map((item) => inline(item, number));
    if (text.startsWith('{') && text.endsWith('}')) {
      return Object.fromEntries(
        splitFlow(text.slice(1, -1)).map((entry) => {
          const colon = entry.indexOf(':');
          return [entry.slice(0, colon).trim(), inline(entry.slice(colon + 1).trim(), number)];
        }),
      );
    }
    if (/^".*"$/.test(text) || /^'.*'$/.test(text)) return text.slice(1, -1);
    return text;
  };

  return block(0);
}

/** Splits a flow collection's inside on the commas that are not inside quotes or brackets. */
function splitFlow(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let current = '';
  for (const char of text) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '[' || char === '{') depth += 1;
    else if (char === ']' || char === '}') depth -= 1;
    else if (char === ',' && depth === 0) {
      items.push(current.trim());
      current = '';
      continue;
    }
    current += char;
  }
  if (current.trim() !== '') items.push(current.trim());
  return items;
}
