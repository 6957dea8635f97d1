// Every namespace of en the window uses (not the CLI's) as one module: Vite makes it one chunk, loaded only when the window speaks en (see ../index.ts).
import type { Catalog } from '../pseudo';

export default import.meta.glob<Catalog>(['../../../../electron/shared/locales/en/*.json', '!**/cli.json'], { eager: true, import: 'default' });
