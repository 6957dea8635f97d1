import type { CallArgs, CallName, CallResult } from '../../shared/ipc';

/** Handler functions for a subset of the contract's calls, typed from it. */
export type HandlersFor<K extends CallName> = { [N in K]: (...args: CallArgs<N>) => Promise<CallResult<N>> };
export type Handlers = HandlersFor<CallName>;
