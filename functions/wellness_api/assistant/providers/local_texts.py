"""What the local assistant says, per locale (en, zh-Hant, zh-Hans), and the words by which it recognizes intents."""

# intent -> words that point to it (matched case-insensitively as substrings; Chinese has no word breaks)
INTENT_WORDS: dict[str, tuple[str, ...]] = {
    # Checked first: a medical question is never answered as if it were a wellness one.
    "medical": (
        "diagnos", "disease", "illness", "medication", "medicine", "prescri", "symptom", "chest pain", "dosage",
        "cancer", "diabetes", "treatment", "infection", "is it serious", "should i see a doctor",
        "診斷", "诊断", "疾病", "藥", "药", "症狀", "症状", "胸痛", "治療", "治疗", "處方", "处方", "糖尿病", "癌",
    ),
    "exercise": (
        "exercise", "workout", "session", "squat", "reps", "training", "ai move", "progress", "calorie", "plank",
        "運動", "运动", "鍛鍊", "锻炼", "訓練", "训练", "深蹲", "次數", "次数", "卡路里", "進度", "进度",
    ),
    "vitals": (
        "heart rate", "heart", "pulse", "vital", "scan", "breathing", "respiratory", "blood pressure", "hrv",
        "oxygen", "心率", "心跳", "脈搏", "脉搏", "血壓", "血压", "呼吸", "掃描", "扫描", "生命徵象", "生命体征",
    ),
    "lessons": (
        "lesson", "class", "course", "recommend", "suggest", "goal", "balance", "strength", "flexib", "yoga",
        "stretch", "beginner", "improve", "課程", "课程", "推薦", "推荐", "目標", "目标", "平衡", "力量", "柔韌",
        "柔韧", "瑜伽", "伸展",
    ),
    "help": (
        "help", "how do i", "how to", "account", "password", "log in", "login", "sign in", "subscription",
        "support", "getting started", "幫助", "帮助", "說明", "帐号", "帳號", "账号", "密碼", "密码", "登入", "登录",
        "如何使用", "怎麼用", "怎么用",
    ),
}

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "intro": "I'm your wellness assistant. I can look at your AI Move exercise history and your latest Vital "
                 "Scan, suggest lessons for a goal, and find help articles. What would you like to know?",
        "medical": "I can offer general wellness guidance, but I can't diagnose conditions or advise on medication. "
                   "Please ask a doctor or another qualified health professional about this; if it feels urgent, "
                   "call your local emergency number.",
        "unavailable": "I couldn't read that just now. Please try again in a moment.",
        "exercise_none": "You have no completed AI Move sessions yet. A short squat session is a good way to start.",
        "exercise_total": "You have completed {sessions} AI Move sessions: {reps} reps and {minutes} minutes of "
                          "exercise in all.",
        "exercise_last": " Your most recent was {exercise} on {date} ({status}{detail}).",
        "exercise_reps": ", {reps} reps",
        "exercise_form": ", form score {score}",
        "exercise_tip": " Keep a steady rhythm: a few short sessions a week beat one long one.",
        "vitals_none": "You have no completed Vital Scan yet. A scan takes about a minute with your camera.",
        "vitals_intro": "Your latest Vital Scan ({date}): ",
        "vitals_hr": "heart rate {value} bpm",
        "vitals_rr": "breathing rate {value} per minute",
        "vitals_hrv": "heart rate variability {value} ms",
        "vitals_spo2": "oxygen saturation {value}%",
        "vitals_bp": "blood pressure {sbp}/{dbp} mmHg",
        "vitals_empty": "the scan did not yield a reading",
        "vitals_note": ". These are wellness estimates from the camera, not medical measurements.",
        "lessons_none": "I found no lesson matching that goal. The lesson list in the app shows everything "
                        "your program offers.",
        "lessons_intro": "Lessons that match your goal:",
        "help_none": "I found no help article about that. Your program's support team can help further.",
        "help_intro": "From the help articles:",
        "separator": ", ",
    },
    "zh-Hant": {
        "intro": "我是你的健康助理。我可以查看你的 AI Move 運動紀錄和最近一次 Vital Scan，依目標推薦課程，也能找說明文章。"
                 "你想了解什麼？",
        "medical": "我可以提供一般的健康建議，但無法診斷疾病或提供用藥建議。請向醫生或其他合格的醫療專業人員諮詢；"
                   "如情況緊急，請撥打當地的緊急電話。",
        "unavailable": "目前無法讀取這項資料，請稍後再試。",
        "exercise_none": "你還沒有完成任何 AI Move 運動。可以先從一次簡短的深蹲開始。",
        "exercise_total": "你已完成 {sessions} 次 AI Move 運動，共 {reps} 次動作、{minutes} 分鐘。",
        "exercise_last": "最近一次是 {date} 的 {exercise}（{status}{detail}）。",
        "exercise_reps": "，{reps} 次",
        "exercise_form": "，動作分數 {score}",
        "exercise_tip": "保持穩定的節奏：每週幾次短時間運動，勝過一次長時間運動。",
        "vitals_none": "你還沒有完成的 Vital Scan。用相機掃描大約只需一分鐘。",
        "vitals_intro": "你最近一次的 Vital Scan（{date}）：",
        "vitals_hr": "心率 {value} 次/分",
        "vitals_rr": "呼吸 {value} 次/分",
        "vitals_hrv": "心率變異 {value} 毫秒",
        "vitals_spo2": "血氧 {value}%",
        "vitals_bp": "血壓 {sbp}/{dbp} mmHg",
        "vitals_empty": "這次掃描沒有得到讀數",
        "vitals_note": "。這些是相機估算的健康參考值，並非醫療量測。",
        "lessons_none": "找不到符合這個目標的課程。你可以在應用程式的課程列表查看所有課程。",
        "lessons_intro": "符合你目標的課程：",
        "help_none": "找不到相關的說明文章。你的服務團隊可以進一步協助你。",
        "help_intro": "說明文章：",
        "separator": "，",
    },
    "zh-Hans": {
        "intro": "我是你的健康助理。我可以查看你的 AI Move 运动记录和最近一次 Vital Scan，按目标推荐课程，也能找帮助文章。"
                 "你想了解什么？",
        "medical": "我可以提供一般的健康建议，但无法诊断疾病或提供用药建议。请向医生或其他合格的医疗专业人员咨询；"
                   "如情况紧急，请拨打当地的急救电话。",
        "unavailable": "目前无法读取这项数据，请稍后再试。",
        "exercise_none": "你还没有完成任何 AI Move 运动。可以先从一次简短的深蹲开始。",
        "exercise_total": "你已完成 {sessions} 次 AI Move 运动，共 {reps} 次动作、{minutes} 分钟。",
        "exercise_last": "最近一次是 {date} 的 {exercise}（{status}{detail}）。",
        "exercise_reps": "，{reps} 次",
        "exercise_form": "，动作分数 {score}",
        "exercise_tip": "保持稳定的节奏：每周几次短时间运动，胜过一次长时间运动。",
        "vitals_none": "你还没有完成的 Vital Scan。用相机扫描大约只需一分钟。",
        "vitals_intro": "你最近一次的 Vital Scan（{date}）：",
        "vitals_hr": "心率 {value} 次/分",
        "vitals_rr": "呼吸 {value} 次/分",
        "vitals_hrv": "心率变异 {value} 毫秒",
        "vitals_spo2": "血氧 {value}%",
        "vitals_bp": "血压 {sbp}/{dbp} mmHg",
        "vitals_empty": "这次扫描没有得到读数",
        "vitals_note": "。这些是相机估算的健康参考值，并非医疗测量。",
        "lessons_none": "找不到符合这个目标的课程。你可以在应用的课程列表查看所有课程。",
        "lessons_intro": "符合你目标的课程：",
        "help_none": "找不到相关的帮助文章。你的服务团队可以进一步协助你。",
        "help_intro": "帮助文章：",
        "separator": "，",
    },
}

# Characters written differently in the two Chinese scripts, to tell zh-Hant from zh-Hans.
TRADITIONAL_ONLY = set("們這個為會說時麼與來國過動運體醫藥歡謝請問課氣點長壓幫數變據經練鍛應網頁帳號碼錄議"
                       "狀嚴嗎還讓該覺頭聽從樣兒見實現題關開門車電話語讀寫學習買賣錢飯飲師幾進邊歲療腦臟腎減輕"
                       "嗎對麼號鐘週給讓習慣檢驗測")
SIMPLIFIED_ONLY = set("们这个为会说时么与来国过动运体医药欢谢请问课气点长压帮数变据经练锻应网页帐号码录议"
                      "状严吗还让该觉头听从样儿见实现题关开门车电话语读写学习买卖钱饭饮师几进边岁疗脑脏肾减轻"
                      "吗对么号钟周给让习惯检验测")
