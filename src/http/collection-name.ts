/**
 * reference/routes.md, "Collection name resolution" [DEVIATION]: `directus_<x>` in a path or
 * body names `svc_<x>` (the SDK sends the convention's names); responses use `svc_`.
 */
export function toCollectionName(name: string): string {
  return name.startsWith('directus_') ? `svc_${name.slice('directus_'.length)}` : name;
}
