// Every namespace of zh-CN the window uses (not the CLI's) as one module: Vite makes it one chunk, loaded only when the window speaks zh-CN (see ../index.ts).
import type { Catalog } from '../pseudo';

export default import.meta.glob<Catalog>(['../../../../electron/shared/locales/zh-CN/*.json', '!**/cli.json'], { eager: true, import: 'default' });
