// Teams' look: Fluent UI's Teams themes as CSS custom properties (the style sheet uses them only).
import { teamsDarkTheme, teamsHighContrastTheme, teamsLightTheme } from "@fluentui/tokens";
import { setTheme } from "@fluentui/web-components";

const THEMES = { default: teamsLightTheme, dark: teamsDarkTheme, contrast: teamsHighContrastTheme };

// Teams names its themes default, dark and contrast; outside Teams, `?theme=` or the system's.
export function applyTheme(name) {
  const chosen = THEMES[name] ? name : "default";
  setTheme(THEMES[chosen]);
  document.documentElement.dataset.theme = chosen;
}

export function systemTheme() {
  if (matchMedia("(forced-colors: active)").matches) return "contrast";
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "default";
}
