/**
 * `context.services`: Directus 10's service classes extensions construct
 * (`new ItemsService(collection, { schema, accountability })`), over the service's own.
 */
export type ExtensionServices = Readonly<Record<string, unknown>>;

export function extensionServices(): ExtensionServices {
  return Object.freeze({});
}
