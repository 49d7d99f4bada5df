/** One row of the settings table (settings.ts): a variable, its default and what it means. */
export interface Setting {
  readonly name: string;
  /** As a person would write it in the environment; `–` when unset means "none". */
  readonly default: string;
  readonly meaning: string;
}

export interface SettingsSection {
  readonly title: string;
  readonly settings: readonly Setting[];
}

/** A row, briefly. */
export const s = (name: string, defaultValue: string, meaning: string): Setting => ({
  name,
  default: defaultValue,
  meaning,
});
