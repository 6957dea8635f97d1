import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { call } from './lib/api';
import { startI18n } from './lib/i18n';
import './styles.css';

// The first screen is drawn in the user's language: its catalogs are loaded before anything renders.
// Should they fail to load, the window still opens (showing keys) rather than staying blank.
await startI18n(() => call('prefsGet').then((p) => p.language)).catch((err: unknown) => console.error('Loading the catalogs failed', err));

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
