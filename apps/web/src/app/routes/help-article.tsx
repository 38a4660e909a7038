import { useParams } from 'react-router';
import { HelpArticleView } from '@/features/help/components/help-article-view';

/** /help/:id: a help centre article. */
export default function HelpArticleRoute() {
  const { id = '' } = useParams();
  // A new article starts from its own loading state, not the previous one's.
  return <HelpArticleView key={id} id={id} />;
}
