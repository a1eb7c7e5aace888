import { describe, expect, it } from 'vitest';
import { captionStyle } from './caption-styles.ts';
import {
  captionLineChars, filterOptionValue, frameSizes, slidesArguments, slidesFilterGraph, type SlidesRender,
} from './slides-command.ts';

const render: SlidesRender = {
  scenes: [
    {
      seconds: 1.25, captionFile: '/work/caption-0.txt', imageFile: '/work/library-0.png',
      narrationFile: '/work/n-0.wav',
    },
    { seconds: 2, captionFile: '/work/caption-1.txt', imageFile: null, narrationFile: '/work/n-1.wav' },
  ],
  frame: frameSizes.vertical,
  style: captionStyle('classic'),
  fontFile: '/fonts/Deja Vu: Bold\'s.ttf',
  maxSeconds: 3,
  filterGraphFile: '/work/graph.txt',
  outputFile: '/work/video.mp4',
};

describe('the ffmpeg command of a slideshow', () => {
  it('escapes option values for the option list and then for the graph', () => {
    expect(filterOptionValue('/a:b\'c,d[e];f\\g')).toBe('/a\\\\:b\\\\\\\'c\\,d\\[e\\]\\;f\\\\\\\\g');
    expect(slidesFilterGraph(render)).toContain('fontfile=/fonts/Deja Vu\\\\: Bold\\\\\\\'s.ttf:');
  });

  it('reads captions from files with expansion off, over images low and on backgrounds centred', () => {
    const graph = slidesFilterGraph(render);
    expect(graph.match(/expansion=none/g)).toHaveLength(2);
    expect(graph).toContain('textfile=/work/caption-0.txt');
    expect(graph).toContain('y=h-text_h-h*0.1[v0]');
    expect(graph).toContain('y=(h-text_h)/2[v1]');
    expect(graph).toContain('apad=whole_dur=1.250,atrim=duration=1.250');
    expect(graph.trimEnd().endsWith('[v0][a0][v1][a1]concat=n=2:v=1:a=1[v][a]')).toBe(true);
  });

  it('encodes H.264 Main and AAC at 30 fps, cut at the cap, with progress on stdout', () => {
    const args = slidesArguments(render).join(' ');
    expect(args).toContain('-loop 1 -framerate 30 -t 1.250 -i /work/library-0.png');
    expect(args).toContain('-f lavfi -t 2.000 -i color=c=0x1d3557:s=1080x1920:r=30');
    expect(args).toContain('-c:v libx264 -profile:v main');
    expect(args).toContain('-pix_fmt yuv420p -r 30');
    expect(args).toContain('-c:a aac');
    expect(args).toContain('-movflags +faststart -t 3.000 -progress pipe:1');
  });

  it('fits about as many characters on a line as the frame is wide', () => {
    const style = captionStyle('classic');
    expect(captionLineChars(frameSizes.vertical, style)).toBe(23);
    expect(captionLineChars(frameSizes.horizontal, style)).toBe(42);
  });
});
