// The lectures' slideshow page (jupyterlab-rise 0.43.1, /rise/...) builds its own small JupyterLab whose
// module-federation share scope lacks @jupyterlab/console, @jupyterlab/logconsole and @jupyterlab/mainmenu.
// The ipywidgets manager (jupyterlab_widgets) asks for them for three optional services (the console
// tracker, the log console, the main menu), so it fails to load and every widget shows as its text,
// "IntSlider(value=3)". This container runs before any extension's code is fetched: for each of those
// packages that the page does not share, it shares a stand-in that holds only the service token, a token no
// plugin provides, so the widget manager starts without those optional services (a slideshow has neither
// consoles, a log console nor menus). Where JupyterLab itself shares them (the ordinary Lab), it does nothing.
(function () {
  "use strict";
  var NAME = "course-rise-widgets";
  var TOKENS = {
    "@jupyterlab/console": ["IConsoleTracker"],
    "@jupyterlab/logconsole": ["ILoggerRegistry"],
    "@jupyterlab/mainmenu": ["IMainMenu"]
  };
  var STAND_IN_VERSION = "4.6.2"; // what jupyterlab_widgets 3.0.17 asks for (^4.6.2)

  function newestModule(versions) {
    var newest = Object.keys(versions).sort(function (a, b) {
      return a.localeCompare(b, undefined, { numeric: true });
    }).pop();
    return versions[newest].get().then(function (factory) { return factory(); });
  }

  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB[NAME] = {
    init: function (scope) {
      var absent = Object.keys(TOKENS).filter(function (key) { return !scope[key]; });
      if (!absent.length || !scope["@lumino/coreutils"]) {
        return Promise.resolve();
      }
      return newestModule(scope["@lumino/coreutils"]).then(function (coreutils) {
        absent.forEach(function (key) {
          var standIn = {};
          TOKENS[key].forEach(function (token) {
            standIn[token] = new coreutils.Token(key + ":" + token + " (not on the slideshow page)");
          });
          scope[key] = {};
          scope[key][STAND_IN_VERSION] = {
            get: function () { return Promise.resolve(function () { return standIn; }); },
            from: NAME,
            eager: false,
            loaded: 1
          };
        });
      });
    },
    get: function (module) {
      // "./extension": no plugins of its own
      return Promise.resolve(function () { return { __esModule: true, default: [] }; });
    }
  };
})();
