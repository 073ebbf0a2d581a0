//go:build desktop

package desktop

import (
	"os"
	"strings"

	"github.com/plugboard/plugboard/backend/reload"
)

// trayText is what the tray says, in one language: the page's languages (English and
// Simplified Chinese), so that the tray speaks as the window does.
type trayText struct {
	open, openTip, rescan, rescanTip, pause, pauseTip, quit, quitTip string
	ok, issues, reloading, paused, limited                           string
	running, runningBody, pickFolder                                 string
}

var trayTexts = map[string]trayText{
	"en": {
		open: "Open Plugboard", openTip: "Show the Plugboard window",
		rescan: "Rescan now", rescanTip: "Scan every plugin and skill again",
		pause: "Pause watching", pauseTip: "Stop reloading on file changes until unticked",
		quit: "Quit", quitTip: "Quit Plugboard",
		ok: "Plugboard: watching, no errors", issues: "Plugboard: some plugins or skills have errors",
		reloading: "Plugboard: reloading…", paused: "Plugboard: watching paused",
		limited:     " (watch limit reached: rescanning periodically)",
		running:     "Plugboard is running",
		runningBody: "Its tray icon shows whether the catalog is ok, has issues or is reloading; the window's Settings can start it at login.",
		pickFolder:  "Choose a plugin folder",
	},
	"zh-CN": {
		open: "打开 Plugboard", openTip: "显示 Plugboard 窗口",
		rescan: "立即重新扫描", rescanTip: "重新扫描所有插件和技能",
		pause: "暂停监视", pauseTip: "文件变化时不再重新加载，直到取消勾选",
		quit: "退出", quitTip: "退出 Plugboard",
		ok: "Plugboard：正在监视，没有错误", issues: "Plugboard：部分插件或技能有错误",
		reloading: "Plugboard：正在重新加载…", paused: "Plugboard：已暂停监视",
		limited:     "（已达到监视上限：定期重新扫描）",
		running:     "Plugboard 正在运行",
		runningBody: "托盘图标显示目录是否正常、有问题或正在重新加载；可在窗口的“设置”中让它登录时启动。",
		pickFolder:  "选择插件文件夹",
	},
}

// menu is the label and tooltip of each menu item, in the order Tray.items holds them:
// open, rescan, pause, quit.
func (t trayText) menu() [4][2]string {
	return [4][2]string{{t.open, t.openTip}, {t.rescan, t.rescanTip}, {t.pause, t.pauseTip}, {t.quit, t.quitTip}}
}

// textFor is the tray's text in lang ("en" or "zh-CN"); any other language is English.
func textFor(lang string) trayText {
	if t, ok := trayTexts[lang]; ok {
		return t
	}
	return trayTexts["en"]
}

// systemLang is the language the system's locale asks for, as the page's systemLang reads
// navigator.language (which WebKitGTK takes from the same variables): the first of
// LANGUAGE (a list), LC_ALL, LC_MESSAGES and LANG that is set; Chinese is "zh-CN", anything
// else "en".
func systemLang(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, v := range []string{"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"} {
		val := getenv(v)
		if v == "LANGUAGE" {
			val, _, _ = strings.Cut(val, ":")
		}
		if val == "" || val == "C" || val == "POSIX" {
			continue
		}
		if strings.HasPrefix(strings.ToLower(val), "zh") {
			return "zh-CN"
		}
		return "en"
	}
	return "en"
}

// trayTooltip says the state in words in lang, for the hover text and for screen readers.
func trayTooltip(st reload.State, lang string) string {
	txt := textFor(lang)
	var s string
	switch st.State {
	case reload.StateOK:
		s = txt.ok
	case reload.StateIssues:
		s = txt.issues
	case reload.StateReloading:
		s = txt.reloading
	case reload.StatePaused:
		s = txt.paused
	default:
		s = "Plugboard: " + st.State
	}
	if st.Limited && !st.Paused {
		s += txt.limited
	}
	return s
}
