/** Every event is parsed against its schema before it leaves main, so nothing the contract does not list reaches the window. */
import { EVENTS, type EventName, type EventPayload } from '../shared/ipc';

/**
 * Wraps `send` so that each payload is parsed (unknown fields stripped) first;
 * an invalid payload is dropped and logged by event name only, never its content.
 */
export function parsedEmitter(
  send: <K extends EventName>(event: K, payload: EventPayload<K>) => void,
  log: (message: string) => void = (m) => console.error(m),
): <K extends EventName>(event: K, payload: EventPayload<K>) => void {
  return (event, payload) => {
    const spec = EVENTS[event];
    const parsed = spec ? spec.payload.safeParse(payload) : undefined;
    if (!parsed?.success) {
      log(`Dropped an invalid ${String(event)} event.`);
      return;
    }
    send(event, parsed.data as EventPayload<typeof event>);
  };
}
