// Every namespace of pt-BR the window uses (not the CLI's) as one module: Vite makes it one chunk, loaded only when the window speaks pt-BR (see ../index.ts).
import type { Catalog } from '../pseudo';

export default import.meta.glob<Catalog>(['../../../../electron/shared/locales/pt-BR/*.json', '!**/cli.json'], { eager: true, import: 'default' });
