import { ShlPage } from '@/features/shl-viewer/components/shl-page';

/** /shl#shlink:/…: a study link's page, for anyone holding the link (no session). */
export default function ShlRoute() {
  return <ShlPage />;
}
