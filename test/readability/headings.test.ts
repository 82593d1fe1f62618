import { describe, expect, it } from 'vitest';
import { headingOf } from '../../src/ingest/add.js';
import { withoutPinnedBullets } from '../../src/pipeline/package/index.js';

/** Headings of memories written without --title, and pinned memories said once in the package. */

describe('headingOf', () => {
  it('takes a heading or a title-like first line out of the body', () => {
    expect(headingOf('# Release checklist\n\n- tag it\n- smoke test')).toEqual({
      title: 'Release checklist',
      body: '- tag it\n- smoke test',
    });
    expect(headingOf('Deploy notes:\n\nThe deploy took 4 minutes and nothing broke.')).toEqual({
      title: 'Deploy notes',
      body: 'The deploy took 4 minutes and nothing broke.',
    });
  });

  it('names a longer text by its first sentence, cut at a word boundary, and keeps the body whole', () => {
    const text =
      'Moved the nightly invoice export from the cron box to the BullMQ worker so that retries and alerts finally work. It runs at 02:00 UTC.';
    const heading = headingOf(text)!;
    expect(heading.body).toBe(text);
    expect(heading.title.length).toBeLessThanOrEqual(70);
    expect(heading.title).toMatch(/^Moved the nightly invoice export from the cron box to the BullMQ\S*…$/);
    expect(text.startsWith(heading.title.replace(/…$/, ''))).toBe(true);
  });

  it('gives a one-sentence memory no heading: it would repeat the body', () => {
    expect(headingOf('Marcus is on call this week.')).toBeUndefined();
  });
});

describe('pinned memories in the package', () => {
  it('are left out of the summaries the package quotes, with labels and headings left empty', () => {
    const body = [
      '### Accomplishments',
      '',
      '- **Tue 08-25** **Pinned:** Production deploys need two approvals.',
      '- **Wed 08-26** Shipped the CSV export.',
      '',
      '### Decisions',
      '',
      '- **Thu 09-24**',
      '  - **Pinned:** Never run migrations on a Friday.',
    ].join('\n');
    expect(withoutPinnedBullets(body)).toBe('### Accomplishments\n\n- **Wed 08-26** Shipped the CSV export.');
  });

  it('drops a pinned bullet that names its speaker, as the summaries of a conversation write it', () => {
    const body = [
      '### Conversation',
      '',
      '- **Mon 05-08** Caroline: **Pinned:** Always book the venue two months ahead.',
      '- **Tue 05-09**',
      '  - Melanie: **Pinned:** The art class is on Tuesdays.',
      '  - Melanie: Went to the beach with the kids.',
    ].join('\n');
    expect(withoutPinnedBullets(body)).toBe('### Conversation\n\n- **Tue 05-09**\n  - Melanie: Went to the beach with the kids.');
  });
});
