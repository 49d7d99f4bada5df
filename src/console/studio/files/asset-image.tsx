/**
 * An image of /assets/<id> fetched through the client (the session's token rides in its
 * header, never in the URL), shown from a blob: URL the CSP allows.
 */
import { useEffect, useState, type ImgHTMLAttributes } from 'react';
import { client } from '../../session.js';

/** The blob: URL of `/assets/<id>` with `params` (transforms), or undefined while it loads. */
export function useAssetUrl(
  id: string | undefined,
  params: Readonly<Record<string, string | number>> = {},
): string | undefined {
  const [url, setUrl] = useState<string | undefined>(undefined);
  const key = JSON.stringify(params);
  useEffect(() => {
    if (id === undefined) return undefined;
    let made: string | undefined;
    let isCurrent = true;
    client.transport
      .get<never, ArrayBuffer>(`/assets/${encodeURIComponent(id)}`, { responseType: 'arraybuffer', params })
      .then(
        (answer) => {
          if (!isCurrent) return;
          made = URL.createObjectURL(new Blob([answer.raw]));
          setUrl(made);
        },
        () => undefined,
      );
    return () => {
      isCurrent = false;
      if (made !== undefined) URL.revokeObjectURL(made);
    };
  }, [id, key]);
  return url;
}

/** Downloads `/assets/<id>?download` as `name`, through the client. */
export async function downloadAsset(id: string, name: string): Promise<void> {
  const bytes = (
    await client.transport.get<never, ArrayBuffer>(`/assets/${encodeURIComponent(id)}`, {
      responseType: 'arraybuffer',
      params: { download: '' },
    })
  ).raw;
  const url = URL.createObjectURL(new Blob([bytes]));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

type AssetImageProps = Omit<ImgHTMLAttributes<HTMLImageElement>, 'src'> & {
  readonly fileId: string;
  readonly params?: Readonly<Record<string, string | number>>;
};

export function AssetImage({ fileId, params, alt, ...rest }: AssetImageProps) {
  const url = useAssetUrl(fileId, params);
  return url === undefined ? null : <img src={url} alt={alt ?? ''} {...rest} />;
}
