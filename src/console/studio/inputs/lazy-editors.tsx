/**
 * The heavy editors, each in its own chunk, loaded the first time a form shows one: TipTap for
 * rich text (ra-input-rich-text) and CodeMirror for markdown, code and JSON.
 */
import { lazy, Suspense } from 'react';
import { LinearProgress } from '@mui/material';
import { useTranslate } from 'react-admin';
import type { CodeLanguage } from './code-input.js';
import type { CommonProps } from './common-props.js';

const RichTextEditor = lazy(() => import('./rich-text-input.js'));
const CodeEditor = lazy(() => import('./code-input.js'));

function Loading() {
  const translate = useTranslate();
  return <LinearProgress aria-label={translate('svc.inputs.loading_editor')} sx={{ my: 2 }} />;
}

export function LazyRichTextInput(props: CommonProps) {
  return (
    <Suspense fallback={<Loading />}>
      <RichTextEditor {...props} />
    </Suspense>
  );
}

export function LazyCodeInput(props: CommonProps & { readonly language: CodeLanguage | string }) {
  return (
    <Suspense fallback={<Loading />}>
      <CodeEditor {...props} />
    </Suspense>
  );
}
