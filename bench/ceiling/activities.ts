// The ceiling probe's only activity: records when it ran (the probe's "arrival"), does nothing else.
export const arrivals: number[] = [];

export const ceilingActivities = {
  async touch(n: number): Promise<number> {
    arrivals.push(performance.now());
    return n;
  },
};
