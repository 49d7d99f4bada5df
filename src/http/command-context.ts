/**
 * The write context of a request. Built below http (commands/command-context.ts) so that
 * background jobs, which run without a request, act for their caller the same way.
 */
export { commandContext, type CommandContextDeps } from '../commands/command-context.js';
