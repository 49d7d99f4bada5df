/**
 * A two-factor enrolment's otpauth URL as a QR code, for an authenticator app's camera (the
 * secret and the URL stay beside it as text). qrcode is imported when the code is drawn: a
 * chunk of its own, fetched only by whoever sets up TFA, outside the bundle budget. A PNG
 * data: URL (the CSP's img-src allows data:).
 */
import { useEffect, useState } from 'react';
import { Skeleton, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';

const SIZE = 192;

type QrCodeModule = typeof import('qrcode');

/**
 * qrcode's functions from its dynamic import. qrcode is CommonJS: in a split build esbuild makes
 * its chunk export the module as `default` only (named exports exist only when it is inlined),
 * so `toDataURL` read off the namespace was undefined and no code was ever drawn (issue #39).
 */
const qrcodeOf = (namespace: QrCodeModule): QrCodeModule =>
  (namespace as QrCodeModule & { default?: QrCodeModule }).default ?? namespace;

export function TfaQrCode({ url }: { url: string }) {
  const translate = useTranslate();
  // undefined while drawing; null when it could not be (the secret and URL are there as text).
  const [src, setSrc] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let isCurrent = true;
    setSrc(undefined);
    import('qrcode')
      .then((namespace) => qrcodeOf(namespace).toDataURL(url, { margin: 1, width: SIZE, errorCorrectionLevel: 'M' }))
      .then(
        (data) => isCurrent && setSrc(data),
        () => isCurrent && setSrc(null),
      );
    return () => {
      isCurrent = false;
    };
  }, [url]);
  if (src === null)
    return (
      <Typography variant="body2" color="text.secondary">
        {translate('svc.access.tfa_qr_failed')}
      </Typography>
    );
  if (src === undefined)
    return <Skeleton variant="rectangular" width={SIZE} height={SIZE} aria-label={translate('svc.page.loading')} />;
  return <img src={src} width={SIZE} height={SIZE} alt={translate('svc.access.tfa_qr')} data-tfa-qr="" />;
}
