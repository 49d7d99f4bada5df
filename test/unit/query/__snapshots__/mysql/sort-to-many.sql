select `x2`.`c0`
from (
  select `t1`.`id` as `c0`, (
    select min((
        select `t4`.`name`
        from `categories` as `t4`
        where `t4`.`id` = `t3`.`categories_id`))
    from `articles_categories` as `t3`
    where `t3`.`articles_id` = `t1`.`id`) as `s0`, (
    select max((
        select `t6`.`title`
        from `headings` as `t6`
        where `t5`.`collection` = ? and `t6`.`id` = `t5`.`item`))
    from `articles_sections` as `t5`
    where `t5`.`articles_id` = `t1`.`id`) as `s1`, (
    select max(`t7`.`id`)
    from `comments` as `t7`
    where `t7`.`article` = `t1`.`id`) as `s2`
  from `articles` as `t1`) as `x2`
order by `x2`.`s0` is null, `x2`.`s0`, `x2`.`s1` is null desc, `x2`.`s1` desc, `x2`.`s2` is null desc, `x2`.`s2` desc
limit ?
-- values: ["headings",100]
