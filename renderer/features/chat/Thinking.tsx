import { useTranslation } from 'react-i18next';
import './Thinking.css';

/**
 * Claude's thinking for a reply: collapsed under "Thinking", opened on request,
 * while the reply streams and once it is saved. Plain text only: React sets it
 * as text, so nothing in it is ever read as HTML or Markdown.
 */
export function Thinking({ text }: { text: string }) {
  const { t } = useTranslation('chat');
  return (
    <details className="thinking">
      <summary>{t('transcript.thinking')}</summary>
      <pre dir="auto">{text}</pre>
    </details>
  );
}
