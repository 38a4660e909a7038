// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TermsCheckbox } from '../src/features/auth/components/terms-checkbox';

afterEach(cleanup);

describe('the registration forms’ terms box', () => {
  it('links to the published terms beside the box, and following the link does not tick it', async () => {
    const onChange = vi.fn();
    render(
      <TermsCheckbox
        id="reg"
        value={false}
        onChange={onChange}
        onBlur={vi.fn()}
        termsUrl="https://example.org/terms"
      />,
    );
    const link = screen.getByRole('link', { name: /^Read the terms/ });
    expect(link.getAttribute('href')).toBe('https://example.org/terms');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noreferrer');
    expect(link.closest('label')).toBeNull();
    link.addEventListener('click', (e) => e.preventDefault());
    await userEvent.setup().click(link);
    expect(onChange).not.toHaveBeenCalled();
    await userEvent.setup().click(screen.getByLabelText('I accept the terms and conditions'));
    expect(onChange).toHaveBeenCalledWith(true);
  });

  it('shows no link where no terms are published', () => {
    render(<TermsCheckbox id="reg" value={false} onChange={vi.fn()} onBlur={vi.fn()} termsUrl={null} />);
    expect(screen.queryByRole('link')).toBeNull();
    expect(screen.getByLabelText('I accept the terms and conditions')).toBeTruthy();
  });
});
