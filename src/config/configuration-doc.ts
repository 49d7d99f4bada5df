import type { Setting } from './setting.js';
import { SETTINGS } from './settings.js';

/**
 * docs/configuration.md, rendered from the settings table (settings.ts) so the two cannot
 * drift: test/unit/config/settings-table.test.ts compares them, and with UPDATE_DOCS=1
 * rewrites the file.
 */
export function renderConfigurationDoc(): string {
  const sections = SETTINGS.map(
    (section) =>
      `## ${section.title}\n\n| variable | default | meaning |\n|---|---|---|\n${section.settings.map(row).join('\n')}\n`,
  );
  return [HEADER, ...sections].join('\n');
}

const HEADER = `# Configuration

<!-- Generated from src/config/settings.ts: edit the table there, then run
     UPDATE_DOCS=1 npx mocha test/unit/config/settings-table.test.ts -->

The service reads its settings from environment variables once, at start. A \`.env\` file
(\`CONFIG_PATH\`, \`./.env\` by default) may hold them too, one \`NAME=value\` a line; a variable
set in the environment wins over the file.

A value that cannot be used stops the start with one line naming the variable, for example
\`Invalid configuration: PORT must be an integer, got "eighty".\`, and exit code 1.

How values are written:

- \`<NAME>_FILE=/path\` reads the value of \`<NAME>\` from that file (for secrets mounted as files).
- Durations: \`500ms\`, \`30s\`, \`15m\`, \`7d\`, or a plain number of milliseconds.
- Sizes: \`500kb\`, \`1mb\`, or a plain number of bytes.
- Lists: comma separated, \`a,b,c\`.
- Booleans: \`true\` or \`false\`.
- A leading \`string:\`, \`number:\` or \`array:\` is accepted and dropped.
`;

function row(setting: Setting): string {
  return `| \`${setting.name}\` | ${cell(setting.default)} | ${setting.meaning.replace(/\|/g, '\\|')} |`;
}

function cell(value: string): string {
  return value === '–' || /\s/.test(value) ? value : `\`${value}\``;
}
