/**
 * Ctrl+S (Cmd+S on a Mac) submits the form this element sits in, as its Save button would
 * (react-admin's submit: validation, the API's field errors, the notification).
 */
import { useEffect, useRef } from 'react';

export function KeyboardSave() {
  const anchor = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey || event.key.toLowerCase() !== 's')
        return;
      const form = anchor.current?.closest('form');
      if (form === null || form === undefined) return;
      // Not the browser's "save page as".
      event.preventDefault();
      form.requestSubmit();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
    };
  }, []);
  return <span ref={anchor} hidden />;
}
