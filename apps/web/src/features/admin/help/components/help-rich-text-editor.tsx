import Image from '@tiptap/extension-image';
import { EditorContent, useEditor, useEditorState, type Editor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import {
  Bold,
  Heading2,
  Heading3,
  ImagePlus,
  Italic,
  Captions,
  Link2,
  List,
  ListOrdered,
  Quote,
  Redo2,
  Undo2,
} from 'lucide-react';
import { useId, useRef, useState, type ReactNode } from 'react';
import { HELP_IMAGE_TYPES } from '@mi/contracts/help';
import { sanitizeArticleHtml } from '@mi/contracts/help-html';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { toast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { cn } from '@/lib/utils';
import { uploadHelpImage } from '../api/help-articles';
import { useReauth } from '../../shared/components/reauth-provider';
import { HELP_CONTENT_CLASS } from './help-content-class';

function ToolButton({
  label,
  active,
  disabled,
  onClick,
  children,
}: {
  label: string;
  active?: boolean;
  disabled?: boolean;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <Button
      type="button"
      variant={active ? 'secondary' : 'ghost'}
      size="sm"
      aria-label={label}
      aria-pressed={active}
      title={label}
      disabled={disabled}
      onClick={onClick}
      className="size-8 p-0"
    >
      {children}
    </Button>
  );
}

function Toolbar({
  editor,
  onImage,
  uploading,
}: {
  editor: Editor;
  onImage: () => void;
  uploading: boolean;
}) {
  const state = useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      bold: e.isActive('bold'),
      italic: e.isActive('italic'),
      h2: e.isActive('heading', { level: 2 }),
      h3: e.isActive('heading', { level: 3 }),
      bullet: e.isActive('bulletList'),
      ordered: e.isActive('orderedList'),
      quote: e.isActive('blockquote'),
      link: e.isActive('link'),
      image: e.isActive('image'),
      canUndo: e.can().undo(),
      canRedo: e.can().redo(),
    }),
  });
  const chain = () => editor.chain().focus();
  const setLink = () => {
    const previous = (editor.getAttributes('link').href as string | undefined) ?? '';
    const href = window.prompt('Link address (https://… or a path such as /help)', previous);
    if (href === null) return;
    if (href.trim() === '') chain().extendMarkRange('link').unsetLink().run();
    else chain().extendMarkRange('link').setLink({ href: href.trim() }).run();
  };
  // Readers with a screen reader hear this description in place of the picture.
  const describeImage = () => {
    const previous = (editor.getAttributes('image').alt as string | undefined) ?? '';
    const alt = window.prompt('Describe the image for readers who cannot see it', previous);
    if (alt !== null) chain().updateAttributes('image', { alt: alt.trim() }).run();
  };
  return (
    <div role="toolbar" aria-label="Formatting" className="flex flex-wrap gap-0.5 border-b bg-muted/40 p-1">
      <ToolButton label="Bold" active={state.bold} onClick={() => chain().toggleBold().run()}>
        <Bold className="size-4" aria-hidden="true" />
      </ToolButton>
      <ToolButton label="Italic" active={state.italic} onClick={() => chain().toggleItalic().run()}>
        <Italic className="size-4" aria-hidden="true" />
      </ToolButton>
      <ToolButton label="Heading" active={state.h2} onClick={() => chain().toggleHeading({ level: 2 }).run()}>
        <Heading2 className="size-4" aria-hidden="true" />
      </ToolButton>
      <ToolButton
        label="Subheading"
        active={state.h3}
        onClick={() => chain().toggleHeading({ level: 3 }).run()}
      >
        <Heading3 className="size-4" aria-hidden="true" />
      </ToolButton>
      <ToolButton
        label="Bulleted list"
        active={state.bullet}
        onClick={() => chain().toggleBulletList().run()}
      >
        <List className="size-4" aria-hidden="true" />
      </ToolButton>
      <ToolButton
        label="Numbered list"
        active={state.ordered}
        onClick={() => chain().toggleOrderedList().run()}
      >
        <ListOrdered className="size-4" aria-hidden="true" />
      </ToolButton>
      <ToolButton label="Quote" active={state.quote} onClick={() => chain().toggleBlockquote().run()}>
        <Quote className="size-4" aria-hidden="true" />
      </ToolButton>
      <ToolButton label="Link" active={state.link} onClick={setLink}>
        <Link2 className="size-4" aria-hidden="true" />
      </ToolButton>
      <ToolButton label="Insert image" disabled={uploading} onClick={onImage}>
        {uploading ? <Spinner className="size-4" /> : <ImagePlus className="size-4" aria-hidden="true" />}
      </ToolButton>
      <ToolButton label="Describe image" disabled={!state.image} onClick={describeImage}>
        <Captions className="size-4" aria-hidden="true" />
      </ToolButton>
      <span className="mx-1 w-px bg-border" aria-hidden="true" />
      <ToolButton label="Undo" disabled={!state.canUndo} onClick={() => chain().undo().run()}>
        <Undo2 className="size-4" aria-hidden="true" />
      </ToolButton>
      <ToolButton label="Redo" disabled={!state.canRedo} onClick={() => chain().redo().run()}>
        <Redo2 className="size-4" aria-hidden="true" />
      </ToolButton>
    </div>
  );
}

/** Pictures without a description (pasted ones, usually): said under the editor until described. */
function UndescribedImages({ editor }: { editor: Editor }) {
  const count = useEditorState({
    editor,
    selector: ({ editor: e }) => {
      let n = 0;
      e.state.doc.descendants((node) => {
        if (node.type.name === 'image' && !String(node.attrs.alt ?? '').trim()) n++;
      });
      return n;
    },
  });
  if (count === 0) return null;
  return (
    <p role="status" className="border-t bg-muted/40 px-4 py-2 text-sm text-muted-foreground">
      {count === 1 ? '1 image has' : `${count} images have`} no description: select it and choose 'Describe
      image'. Until then readers with a screen reader are told nothing about it.
    </p>
  );
}

/**
 * The article body editor (Tiptap). It keeps only what its schema knows (paragraphs, headings,
 * lists, quotes, code, links, images with src/alt/title), so pasted markup loses its scripts and
 * attributes on the way in; the server sanitises again on save. Pictures are uploaded to the help
 * centre and inserted by their URL.
 */
export function HelpRichTextEditor({
  value,
  onChange,
  labelledBy,
  invalid,
}: {
  value: string;
  onChange: (html: string) => void;
  labelledBy: string;
  invalid?: boolean;
}) {
  const fileId = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [uploading, setUploading] = useState(false);
  const editor = useEditor({
    extensions: [
      StarterKit.configure({
        heading: { levels: [2, 3, 4] },
        link: { openOnClick: false, autolink: true, protocols: ['http', 'https', 'mailto'] },
      }),
      Image.configure({ inline: false }),
    ],
    content: value,
    editorProps: {
      // Pasted markup goes through the article sanitiser first, so the editor holds what readers
      // will get (no foreign pictures, no handlers).
      transformPastedHTML: sanitizeArticleHtml,
      attributes: {
        'aria-labelledby': labelledBy,
        'aria-multiline': 'true',
        role: 'textbox',
        class: cn(HELP_CONTENT_CLASS, 'min-h-64 px-4 py-3 focus:outline-none'),
      },
    },
    onUpdate: ({ editor: e }) => onChange(e.isEmpty ? '' : e.getHTML()),
  });

  const withReauth = useReauth();
  const insertImage = async (file: File) => {
    if (!editor) return;
    setUploading(true);
    try {
      const src = await withReauth(() => uploadHelpImage(file));
      const alt = file.name.replace(/\.[^.]+$/, '').replace(/[-_]+/g, ' ');
      editor.chain().focus().setImage({ src, alt }).run();
    } catch (err) {
      toast({
        title: 'Error',
        description: errorMessage(err, 'The picture could not be uploaded.'),
        variant: 'destructive',
      });
    } finally {
      setUploading(false);
    }
  };

  return (
    <div
      className={cn(
        'overflow-hidden rounded-md border bg-background focus-within:ring-2 focus-within:ring-ring',
        invalid && 'border-destructive',
      )}
    >
      {editor && <Toolbar editor={editor} uploading={uploading} onImage={() => fileInput.current?.click()} />}
      <EditorContent editor={editor} />
      {editor && <UndescribedImages editor={editor} />}
      <input
        ref={fileInput}
        id={fileId}
        type="file"
        accept={HELP_IMAGE_TYPES.join(',')}
        aria-label="Image file"
        className="sr-only"
        tabIndex={-1}
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (file) void insertImage(file);
        }}
      />
    </div>
  );
}
