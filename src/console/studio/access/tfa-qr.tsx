/**
 * A two-factor enrolment's otpauth URL as a QR code, for an authenticator app's camera (the
 * secret and the URL stay beside it as text). qrcode is imported when the code is drawn: a
 * chunk of its own, fetched only by whoever sets up TFA, outside the bundle budget. A PNG
 * data: URL (the CSP's img-src allows data:).
 */
import { useEffect, useState } from 'react';
import { Skeleton } from '@mui/material';
import { useTranslate } from 'react-admin';

const SIZE = 192;

export function TfaQrCode({ url }: { url: string }) {
  const translate = useTranslate();
  // undefined while drawing; null when it could not be (the text is there).
  const [src, setSrc] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let isCurrent = true;
    setSrc(undefined);
    import('qrcode')
      .then((qrcode) => qrcode.toDataURL(url, { margin: 1, width: SIZE, errorCorrectionLevel: 'M' }))
      .then(
        (data) => isCurrent && setSrc(data),
        () => isCurrent && setSrc(null),
      );
    return () => {
      isCurrent = false;
    };
  }, [url]);
  if (src === null) return null;
  if (src === undefined)
    return <Skeleton variant="rectangular" width={SIZE} height={SIZE} aria-label={translate('svc.page.loading')} />;
  return <img src={src} width={SIZE} height={SIZE} alt={translate('svc.access.tfa_qr')} data-tfa-qr="" />;
}
