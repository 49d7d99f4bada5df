/**
 * Rich text (`input-rich-text-html`): react-admin's TipTap editor, loaded on demand
 * (lazy-editors.tsx). TipTap's style element carries the page's CSP nonce. Without colour and
 * alignment: they are inline `style` attributes, which the Studio's CSP does not apply.
 */
import { useMemo } from 'react';
import { ThemeProvider, type Theme } from '@mui/material';
import {
  ClearButtons,
  DefaultEditorOptions,
  FormatButtons,
  ImageButtons,
  LevelSelect,
  LinkButtons,
  ListButtons,
  QuoteButtons,
  RichTextInput,
  RichTextInputToolbar,
} from 'ra-input-rich-text';
import { pageNonce } from '../page-nonce.js';
import type { CommonProps } from './common-props.js';

const nonce = pageNonce();

// The level picker is a one-item MUI List in a <nav>: its item as a <div>, not a stray <li>.
const toolbarTheme = (outer: Theme): Theme => ({
  ...outer,
  components: { ...outer.components, MuiListItem: { defaultProps: { component: 'div' } } },
});

const toolbar = (
  <ThemeProvider theme={toolbarTheme}>
    <RichTextInputToolbar>
      <LevelSelect />
      <FormatButtons />
      <ListButtons />
      <LinkButtons />
      <ImageButtons />
      <QuoteButtons />
      <ClearButtons />
    </RichTextInputToolbar>
  </ThemeProvider>
);

export default function RichTextEditor(props: CommonProps) {
  const editorOptions = useMemo(
    () => ({
      ...DefaultEditorOptions,
      ...(nonce === undefined ? { injectCSS: false } : { injectNonce: nonce }),
      // The editable area is named after its field (the toolbar's label is not its label).
      editorProps: { attributes: { 'aria-label': props.label } },
    }),
    [props.label],
  );
  return <RichTextInput {...props} editorOptions={editorOptions} toolbar={toolbar} />;
}
