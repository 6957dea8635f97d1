/**
 * Text main says to the user, as it crosses to the window: the English
 * `message` (logs, older callers, what is stored) and, where main has one, the
 * catalog key (`errors:…`) with its parameters, which the window says in its
 * own language (electron/core/i18n/message.ts makes them; renderer/lib/api.ts
 * says them).
 */
import { z } from 'zod';

/** A message by catalog key, filled in with `params`. */
export interface Keyed {
  key: string;
  params?: MessageParams;
}
/**
 * What a message is filled in with: a count, a name, a path; or another message (said first, in the same
 * language, as in "{{reason}} Nothing was saved."), or a list of them (joined by `errors:listSeparator`).
 */
export type MessageParam = string | number | Keyed | Keyed[];
export type MessageParams = { [name: string]: MessageParam };

export const Keyed: z.ZodType<Keyed> = z.lazy(() => z.object({ key: z.string().max(200), params: MessageParams.optional() }));
export const MessageParams: z.ZodType<MessageParams> = z.lazy(() => z.record(z.string(), z.union([z.string(), z.number(), Keyed, z.array(Keyed)])));

/** Something main says to the user: English, plus (optional) its key and parameters for the window's language. */
export const Said = z.object({ message: z.string(), key: z.string().max(200).optional(), params: MessageParams.optional() });
export type Said = z.infer<typeof Said>;
